"""``handlers/turns.py`` alone: a model call that starts again, and the end of a turn, from real recorded runs."""

from __future__ import annotations

from tests.support.recorded import Stepper, chunk, only, types


def test_a_retried_attempt_takes_back_what_the_abandoned_one_showed() -> None:
    run = Stepper("throttle_retry")
    run.until(lambda e: "event_loop_throttled_delay" in e)
    shown = list(run.translator.turn.message_ids)
    assert shown  # the first attempt's text is on the client
    out = run.translator.turns.on_throttle({"event_loop_throttled_delay": 0})
    assert types(out) == ["MESSAGES_SNAPSHOT"]
    assert not {m["id"] for m in out[0].model_dump()["messages"]} & set(shown)
    assert not run.translator.turn.shown


def test_a_message_start_after_a_hook_asked_for_a_retry_takes_back_the_text_and_the_call() -> None:
    run = Stepper("hook_retry")
    run.translator.handle(run.until(chunk("messageStart")))  # the first attempt starts
    retry = run.until(chunk("messageStart"))  # the retry starts after the first attempt showed text and a call
    calls = list(run.translator.turn.tool_use_ids)
    out = run.translator.turns.on_message_start(retry["event"]["messageStart"])
    assert types(out) == ["MESSAGES_SNAPSHOT"]
    assert calls and not set(calls) & set(run.translator.tools.calls)


def test_a_message_start_before_anything_was_shown_changes_nothing() -> None:
    run = Stepper("plain_text")
    start = run.until(chunk("messageStart"))
    assert run.translator.turns.on_message_start(start["event"]["messageStart"]) == []


def test_the_assistant_message_corrects_the_turn_to_what_strands_kept() -> None:
    run = Stepper("cancelled")
    message = run.until(lambda e: only("message")(e) and e["message"]["role"] == "assistant")["message"]
    out = run.translator.turns.on_assistant_message(message)
    assert types(out) == ["MESSAGES_SNAPSHOT"]  # the partial text became "Cancelled by user"
    texts = [m.get("content") for m in out[0].model_dump()["messages"] if m["role"] == "assistant"]
    assert texts == ["Cancelled by user"]
    assert run.translator.state == "ready"


def test_the_end_of_a_turn_with_backend_calls_awaits_their_results() -> None:
    run = Stepper("backend_tool")
    message = run.until(lambda e: only("message")(e) and e["message"]["role"] == "assistant")
    assert run.translator.turns.on_message(message) == []  # the turn was streamed as it is kept
    assert run.translator.state == "awaiting_result"
