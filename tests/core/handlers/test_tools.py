"""``handlers/tools.py`` alone: a call's envelope and a batch's results, handed what real recorded runs produced."""

from __future__ import annotations

import json

from tests.support.recorded import Stepper, chunk, delta, only, types


def _tool_use_start(run: Stepper) -> dict:
    event = run.until(lambda e: chunk("contentBlockStart")(e)
                      and "toolUse" in e["event"]["contentBlockStart"]["start"])
    return event["event"]["contentBlockStart"]["start"]["toolUse"]


def test_a_call_is_announced_under_the_turns_text_then_its_arguments_stream_and_its_end_closes_it() -> None:
    run = Stepper("backend_tool")
    tool_use = _tool_use_start(run)
    text_message = run.translator.turn.text_message_id
    started = run.translator.tools.on_tool_use_start(tool_use)
    assert types(started) == ["TOOL_CALL_START"]
    assert started[0].tool_call_id == tool_use["toolUseId"] and started[0].parent_message_id == text_message
    fragments = []
    while (event := run.until(lambda e: delta("toolUse")(e) or chunk("contentBlockStop")(e))) and "event" in event \
            and "contentBlockDelta" in event["event"]:
        fragment = event["event"]["contentBlockDelta"]["delta"]["toolUse"]
        fragments.append(fragment["input"])
        assert types(run.translator.tools.on_tool_input(fragment)) == ["TOOL_CALL_ARGS"]
    ended = run.translator.close_open("contentBlockStop")
    assert types(ended) == ["TOOL_CALL_END"]
    assert run.translator.tools.calls[tool_use["toolUseId"]].tool_input == json.loads("".join(fragments))


def test_arguments_cut_off_are_completed_and_the_cut_is_announced() -> None:
    run = Stepper("max_tokens_tool_call")
    run.translator.handle(run.until(chunk("contentBlockStop")))  # the text block ends
    run.until(chunk("contentBlockStop"))  # the tool block's stop, its arguments cut off
    ended = run.translator.close_open("contentBlockStop")
    assert types(ended) == ["CUSTOM", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    truncated = ended[0].value
    assert truncated["toolCallName"] == "get_weather"
    json.loads(truncated["receivedArgs"] + ended[1].delta)  # completed: the client can parse the call


def test_a_batch_of_results_becomes_tool_call_results_a_snapshot_and_the_end_of_the_batch() -> None:
    run = Stepper("backend_tool")
    results = run.until(lambda e: only("message")(e) and e["message"]["role"] == "user")
    assert run.translator.state == "awaiting_result"
    out = run.translator.tools.on_tool_result_message(results["message"])
    assert types(out) == ["TOOL_CALL_RESULT", "MESSAGES_SNAPSHOT"]
    assert json.loads(out[0].content)["conditions"] == "sunny"
    assert run.translator.state == "ready"
    assert run.translator.tools.pending() == []  # a backend call: nothing left for the client to answer


def test_a_frontend_call_is_the_clients_to_answer_and_halts_the_turn() -> None:
    run = Stepper("frontend_tool_halt")
    run.until(lambda e: only("message")(e) and e["message"]["role"] == "assistant")
    tools = run.translator.tools
    assert tools.turn_calls_frontend_tool() and tools.turn_calls_tools()
    assert tools.pending() == [record.wire_id for record in tools.calls.values()]
