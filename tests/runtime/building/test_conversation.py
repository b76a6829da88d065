"""Stateless runs: each run rebuilds the Strands conversation from RunAgentInput.messages."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent
from strands.hooks import BeforeToolCallEvent

from strands_agui import StrandsAgent
from strands_agui.runtime.building.conversation import UNANSWERED, conversation
from strands_agui.tooling.scripted import Reasoning, RedactedReasoning, ScriptedModel, Text, ToolUse
from strands_agui.tooling.testing import dump_events
from tests.oracles import assert_valid_stream
from tests.support.scenarios import CHANGE_BACKGROUND, get_weather, run_input


def shapes(messages: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    return [(m["role"], [next(iter(b)) for b in m["content"]]) for m in messages]


def test_history_alternates_and_every_tool_call_is_answered() -> None:
    data = run_input(messages=[
        {"id": "u1", "role": "user", "content": "hi"},
        {"id": "u2", "role": "user", "content": [{"type": "text", "text": "again"}]},
        {"id": "a1", "role": "assistant", "content": "calling", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"location":"Oslo"}'}},
            {"id": "c2", "type": "function", "function": {"name": "change_background", "arguments": "{}"}}]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "cold"},
        {"id": "s1", "role": "system", "content": "ignored here"},
        {"id": "u3", "role": "user", "content": "and now?"},
    ])
    turn = conversation(data)
    assert shapes(turn.history) == [("user", ["text", "text"]), ("assistant", ["text", "toolUse", "toolUse"]),
                                    ("user", ["toolResult", "toolResult"])]
    results = {b["toolResult"]["toolUseId"]: b["toolResult"] for b in turn.history[2]["content"]}
    assert results["c1"]["content"] == [{"text": "cold"}]
    assert results["c2"]["status"] == "error" and results["c2"]["content"] == [{"text": UNANSWERED}]
    assert turn.history[1]["content"][1]["toolUse"]["input"] == {"location": "Oslo"}
    assert turn.prompt == [{"text": "and now?"}]


def test_a_conversation_ending_with_tool_results_has_no_prompt() -> None:
    data = run_input(messages=[
        {"id": "u1", "role": "user", "content": "blue please"},
        {"id": "a1", "role": "assistant", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "change_background", "arguments": "{}"}}]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "done"},
    ])
    turn = conversation(data)
    assert turn.prompt is None
    assert shapes(turn.history)[-1] == ("user", ["toolResult"])


@pytest.mark.slow
async def test_frontend_tool_round_trip_is_stateless() -> None:
    """Run 1 halts on the frontend tool; the client's follow-up (a fresh request) carries the result."""
    seen: list[list[dict[str, Any]]] = []

    def script(messages: list[dict[str, Any]]) -> list:
        seen.append([dict(m) for m in messages])
        if "toolResult" in messages[-1]["content"][0]:
            return [Text("Done: the page is blue.")]
        return [Text("Turning it blue."), ToolUse("change_background", {"background": "blue"}, tool_use_id="bg")]

    adapter = StrandsAgent(Agent(model=ScriptedModel(script), callback_handler=None))
    first_input = run_input("make it blue", tools=[CHANGE_BACKGROUND])
    first = dump_events([e async for e in adapter.run(first_input)])
    assert [e["type"] for e in first][-2:] == ["TOOL_CALL_END", "RUN_FINISHED"]
    report = assert_valid_stream(first, input=first_input.model_dump(by_alias=True, exclude_none=True))
    client_messages = report["messages"]
    follow_up = RunAgentInput.model_validate({
        "threadId": "thread-1", "runId": "run-2", "state": {}, "tools": [CHANGE_BACKGROUND], "context": [],
        "forwardedProps": {}, "messages": [*client_messages,
                                           {"id": "tool-1", "role": "tool", "toolCallId": "bg", "content": "ok"}]})
    second = dump_events([e async for e in adapter.run(follow_up)])
    text = "".join(e.get("delta", "") for e in second if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Done: the page is blue."
    assert shapes(seen[-1]) == [("user", ["text"]), ("assistant", ["text", "toolUse"]), ("user", ["toolResult"])]
    assert_valid_stream(second, input={"messages": follow_up.model_dump(by_alias=True, exclude_none=True)["messages"]})


@pytest.mark.slow
@pytest.mark.parametrize(("block", "kept"), [
    (RedactedReasoning(b"opaque-reasoning"), {"redactedContent": b"opaque-reasoning"}),
    (Reasoning("The user wants a greeting.", signature="c2lnbmF0dXJl"),
     {"reasoningText": {"text": "The user wants a greeting.", "signature": "c2lnbmF0dXJl"}}),
])
async def test_reasoning_goes_back_to_the_model_as_strands_kept_it(block: Any, kept: dict[str, Any]) -> None:
    """Run 1 streams (redacted or signed) reasoning; the official client's messages, sent back as the next
    request, give the model the same ``reasoningContent`` block Strands held after run 1."""
    seen: list[list[dict[str, Any]]] = []

    def script(messages: list[dict[str, Any]]) -> list:
        seen.append(messages)
        return [block, Text("Done thinking.")] if len(messages) == 1 else [Text("Again.")]

    template = Agent(model=ScriptedModel(script), callback_handler=None)
    first_input = run_input("think")
    report = assert_valid_stream([e async for e in StrandsAgent(template).run(first_input)],
                                 input=first_input.model_dump(by_alias=True, exclude_none=True))
    [reasoning] = [m for m in report["messages"] if m["role"] == "reasoning"]
    assert reasoning["encryptedValue"]  # the client keeps REASONING_ENCRYPTED_VALUE on the message
    follow_up = run_input(messages=[*report["messages"], {"id": "u2", "role": "user", "content": "and again"}])
    [e async for e in StrandsAgent(template).run(follow_up)]
    assert seen[-1][1] == {"role": "assistant", "content": [{"reasoningContent": kept}, {"text": "Done thinking."}]}


async def test_the_template_agent_is_never_used_or_mutated() -> None:
    template = Agent(model=ScriptedModel(lambda m: [Text(f"{len(m)} messages")]), tools=[get_weather],
                     callback_handler=None, state={"counter": 1})
    adapter = StrandsAgent(template)
    history = run_input(messages=[{"id": "u1", "role": "user", "content": "one"},
                                  {"id": "a1", "role": "assistant", "content": "reply"},
                                  {"id": "u2", "role": "user", "content": "two"}])
    events = dump_events([e async for e in adapter.run(history)])
    assert "".join(e.get("delta", "") for e in events) == "3 messages"
    assert template.messages == [] and template.state.get() == {"counter": 1}


async def test_a_conversation_ending_with_the_assistant_gets_the_default_prompt() -> None:
    seen: list[list[dict[str, Any]]] = []

    def script(messages: list[dict[str, Any]]) -> list:
        seen.append(messages)
        return [Text("Hi again.")]

    adapter = StrandsAgent(Agent(model=ScriptedModel(script), callback_handler=None))
    data = run_input(messages=[{"id": "u1", "role": "user", "content": "hi"},
                               {"id": "a1", "role": "assistant", "content": "hello"}])
    events = dump_events([e async for e in adapter.run(data)])
    assert events[-1]["type"] == "RUN_FINISHED"
    assert seen[0][-1] == {"role": "user", "content": [{"text": "Hello"}]}


async def test_each_run_carries_the_templates_hooks_tools_prompt_and_state() -> None:
    fired: list[str] = []

    def before_tool(event: BeforeToolCallEvent) -> None:
        fired.append(event.tool_use["name"])

    agents: list[Agent] = []

    def script(messages: list[dict[str, Any]]) -> list:
        if "toolResult" in messages[-1]["content"][0]:
            return [Text("done")]
        return [ToolUse("get_weather", {"location": "Oslo"})]

    template = Agent(model=ScriptedModel(script), tools=[get_weather], system_prompt="Be terse.",
                     callback_handler=None, hooks=[before_tool], state={"tenant": "acme"})
    adapter = StrandsAgent(template)
    from strands_agui.runtime.building import run_agent as agents_module

    original = agents_module.copy_agent
    agents_module.copy_agent = lambda t, **kw: agents.append(original(t, **kw)) or agents[-1]  # type: ignore[func-returns-value]
    try:
        for run in ("run-1", "run-2"):
            data = run_input("weather?").model_copy(update={"run_id": run})
            events = dump_events([e async for e in adapter.run(data)])
            assert events[-1]["type"] == "RUN_FINISHED"
    finally:
        agents_module.copy_agent = original
    assert fired == ["get_weather", "get_weather"]
    assert agents[0] is not agents[1] and template not in agents
    assert all(a.system_prompt == "Be terse." and a.state.get() == {"tenant": "acme"} for a in agents)
    assert template.messages == []


CALL = {"id": "c9", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}


@pytest.mark.parametrize("messages", [
    [],
    [{"id": "u1", "role": "user", "content": "hi"}],
    [{"id": "u1", "role": "user", "content": ""}],
    [{"id": "u1", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "content": "hello"}],
    [{"id": "u1", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "toolCalls": [CALL]}],
    [{"id": "u1", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "toolCalls": [CALL]},
     {"id": "t1", "role": "tool", "toolCallId": "c9", "content": "sunny"}],
    [{"id": "a1", "role": "assistant", "toolCalls": [CALL]}, {"id": "u1", "role": "user", "content": "next"}],
    [{"id": "u1", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "content": ""},
     {"id": "s1", "role": "system", "content": "x"}],
    [{"id": "u1", "role": "user", "content": "hi"}, {"id": "a1", "role": "assistant", "content": "a"},
     {"id": "u2", "role": "user", "content": [{"type": "text", "text": "parts"}]}, {"id": "d", "role": "developer",
                                                                                  "content": "ignored"}],
])
def test_the_last_turn_is_the_conversations_end_without_converting_the_thread(messages: list[Any]) -> None:
    """``last_turn`` (what a run reads to choose its prompt, issue 30: not O(thread)) agrees with ``conversation``."""
    from strands_agui.runtime.building.conversation import last_turn

    data = run_input(messages=messages)
    whole, last = conversation(data), last_turn(data)
    assert (last.prompt, last.prompt_text) == (whole.prompt, whole.prompt_text)
    assert [m["role"] for m in last.history] == [m["role"] for m in whole.history[-1:]]
