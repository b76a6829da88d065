"""What Strands reports reaches the client: outcomes, usage, text fidelity, tool results, structured output,
limits, truncated calls. Each case is a recorded real run; the assertions are on what the official client
ends up holding after both oracles accepted the stream."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from strands import Agent, ToolContext, tool

from strands_agui.tooling.testing import dump_events
from tests.oracles import assert_valid_streams
from tests.support.paths import TESTS
from tests.support.replays import replayed
from tests.support.scenarios import BY_NAME, PNG

ROOT = TESTS
NAMES = ["cancelled", "cancel_before_tools", "usage_cache", "throttle_retry", "hook_retry", "citations",
         "redacted_reasoning", "tool_error_result", "tool_cancelled_by_hook", "image_result", "json_result",
         "structured_output", "limit_turns", "max_tokens_tool_call", "invocation_state_data", "frontend_tool_halt",
         "tool_raises", "unknown_tool", "plain_text", "model_error_after_tool", "raw_passthrough"]


def events_of(name: str) -> list[dict[str, Any]]:
    return dump_events(replayed(name))


@pytest.fixture(scope="module")
def client() -> dict[str, dict[str, Any]]:
    """The official client's report per scenario (both oracles run on every stream)."""
    return dict(zip(NAMES, assert_valid_streams([events_of(n) for n in NAMES]), strict=True))


def assistant_texts(report: dict[str, Any]) -> list[str]:
    return [m.get("content") for m in report["messages"] if m["role"] == "assistant" and m.get("content")]


def tool_messages(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in report["messages"] if m["role"] == "tool"]


def test_every_run_finished_carries_an_outcome() -> None:
    for name in NAMES:
        last = events_of(name)[-1]
        if last["type"] == "RUN_FINISHED":
            assert last["outcome"]["type"] in ("success", "cancelled", "interrupt"), name


@pytest.mark.slow
def test_a_cancelled_run_is_cancelled_and_the_client_holds_what_strands_kept(client) -> None:
    for name in ("cancelled", "cancel_before_tools"):
        report = client[name]
        assert report["outcome"] == "cancelled"
        assert assistant_texts(report) == ["Cancelled by user"]  # the partial text is retracted
        assert not any(m.get("toolCalls") for m in report["messages"])  # the unrun call too
        assert events_of(name)[-1]["metadata"] == {"stopReason": "cancelled"}


@pytest.mark.slow
def test_a_frontend_halt_succeeds_naming_the_pending_call(client) -> None:
    report = client["frontend_tool_halt"]
    assert report["outcome"] == "success"
    [call] = [c for m in report["messages"] for c in m.get("toolCalls") or ()]
    assert report["pending_tool_call_ids"] == [call["id"]]
    assert call["function"]["name"] == "change_background"


def test_usage_sums_every_model_call_with_cache_counts_and_the_model() -> None:
    [usage] = events_of("usage_cache")[-1]["usage"]
    assert usage == {"provider": "scriptedmodel", "model": "scripted", "inputTokens": 20, "outputTokens": 10,
                     "totalTokens": 30, "cachedInputTokens": 7, "cacheWriteInputTokens": 3}
    assert events_of("hook_retry")[-1]["usage"][0]["inputTokens"] == 20  # two calls, both counted
    error = events_of("model_error_after_tool")[-1]
    assert error["type"] == "RUN_ERROR" and error["usage"][0]["outputTokens"] == 10  # the first call's


@pytest.mark.slow
def test_a_retried_attempt_leaves_nothing_in_the_transcript(client) -> None:
    assert assistant_texts(client["throttle_retry"]) == ["The retried answer."]
    report = client["hook_retry"]
    assert assistant_texts(report) == ["Final answer."]
    assert [m["content"] for m in tool_messages(report)] == []  # the discarded attempt's call is gone


@pytest.mark.slow
def test_citations_reach_the_message_they_belong_to(client) -> None:
    [message] = [m for m in client["citations"]["messages"] if m["role"] == "assistant"]
    assert message["content"] == "Paris is the capital of France."
    assert message["metadata"]["citations"][0]["title"] == "World Atlas"


def test_redacted_reasoning_is_an_encrypted_value() -> None:
    [event] = [e for e in events_of("redacted_reasoning") if e["type"] == "REASONING_ENCRYPTED_VALUE"]
    assert base64.b64decode(event["encryptedValue"]) == b"opaque-reasoning"


@pytest.mark.slow
def test_an_invocation_state_key_named_data_does_not_replace_the_text(client) -> None:
    assert "SHADOW" in (ROOT / "fixtures" / "invocation_state_data.jsonl").read_text()  # Strands merged it
    assert assistant_texts(client["invocation_state_data"]) == ["The real text."]


@pytest.mark.slow
@pytest.mark.parametrize("name,error", [
    ("tool_error_result", "no entry for x"),
    ("tool_cancelled_by_hook", "weather lookups are disabled"),
    ("tool_raises", "Error: RuntimeError - tool failed: testing"),
    ("unknown_tool", "Unknown tool: does_not_exist"),
])
def test_failed_tool_results_carry_error(client, name: str, error: str) -> None:
    [message] = tool_messages(client[name])
    assert message["error"] == error


@pytest.mark.slow
def test_media_results_are_content_parts_and_json_stays_json(client) -> None:
    [message] = tool_messages(client["image_result"])
    text, image = message["content"]
    assert text == {"type": "text", "text": "Chart: Sales"}
    assert image["type"] == "image" and image["source"]["mimeType"] == "image/png"
    assert base64.b64decode(image["source"]["value"]) == PNG
    [stats] = tool_messages(client["json_result"])
    assert stats["content"] == '{"city":"Paris","population":2100000}'  # compact, as upstream encodes it


@pytest.mark.slow
def test_structured_output_is_the_run_result(client) -> None:
    assert client["structured_output"]["run_result"] == {"city": "Paris", "temperature": 21}


@pytest.mark.slow
def test_a_limit_stop_is_named_in_metadata(client) -> None:
    last = events_of("limit_turns")[-1]
    assert last["metadata"]["stopReason"] == "limit_turns"  # and the note: tests/runtime/test_stops.py
    assert client["limit_turns"]["outcome"] == "success"


@pytest.mark.slow
def test_a_truncated_tool_call_is_valid_json_and_marked(client) -> None:
    events = events_of("max_tokens_tool_call")
    [mark] = [e for e in events if e["type"] == "CUSTOM"]
    assert mark["name"] == "strands_agui.tool_call_truncated"
    assert mark["value"]["receivedArgs"] == '{"location": "Par'
    [call] = [c for m in client["max_tokens_tool_call"]["messages"] for c in m.get("toolCalls") or ()]
    assert call["id"] == mark["value"]["toolCallId"]
    assert call["function"]["arguments"] == '{"location": "Par"}'
    assert events[-1]["code"] == "MAX_TOKENS"


def test_parent_run_id_is_echoed_on_run_started() -> None:
    from strands_agui import StrandsAgent
    from tests.support.scenarios import run_input

    data = run_input().model_copy(update={"parent_run_id": "run-0"})
    opening = StrandsAgent(lambda _: None).opening(data)  # type: ignore[arg-type,return-value]
    assert dump_events(opening.start())[0]["parentRunId"] == "run-0"


async def test_tools_see_the_run_input_and_the_provided_invocation_state() -> None:
    from strands_agui import StrandsAgent, StrandsAgentConfig
    from strands_agui.runtime.invocation import AGUI_INPUT_KEY
    from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
    from tests.support.scenarios import run_input

    seen: list[Any] = []

    @tool(context=True)
    def whoami(tool_context: ToolContext) -> str:
        """Report the caller."""
        state = tool_context.invocation_state
        seen.append((state["tenant"], state[AGUI_INPUT_KEY].forwarded_props, state[AGUI_INPUT_KEY].context))
        return "ok"

    async def provider(request: Any, input_data: Any) -> dict[str, Any]:
        return {"tenant": f"tenant-of-{input_data.thread_id}"}

    agent = Agent(model=ScriptedModel([[ToolUse("whoami", {})], [Text("Done.")]]), tools=[whoami],
                  callback_handler=None)
    data = run_input().model_copy(update={"forwarded_props": {"plan": "pro"}})
    config = StrandsAgentConfig(invocation_state_provider=provider)
    events = dump_events([e async for e in StrandsAgent(agent, config=config).run(data)])
    assert events[-1]["outcome"] == {"type": "success"}
    assert seen == [("tenant-of-thread-1", {"plan": "pro"}, [])]


async def test_a_failing_provider_ends_the_run_with_invocation_state_error() -> None:
    from strands_agui import StrandsAgent, StrandsAgentConfig

    def provider(request: Any, input_data: Any) -> Any:
        return ["not", "a", "dict"]

    adapter = StrandsAgent(BY_NAME["plain_text"].agent(), config=StrandsAgentConfig(invocation_state_provider=provider))
    events = dump_events([e async for e in adapter.run(BY_NAME["plain_text"].input)])
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == "INVOCATION_STATE_ERROR"


@pytest.mark.slow
def test_raw_passthrough_strips_invocation_state(client) -> None:
    assert "s3cr3t-value" in (ROOT / "fixtures" / "raw_passthrough.jsonl").read_text()  # Strands merged it
    events = events_of("raw_passthrough")
    raws = [e["event"] for e in events if e["type"] == "RAW"]
    assert {"init_event_loop": True} in raws
    assert any("tool_cancel_event" in r for r in raws)
    assert "s3cr3t" not in str(events) and "api_secret" not in str(events)
    assert not any(e["type"] == "RAW" for e in events_of("tool_cancelled_by_hook"))  # off by default
    assert client["raw_passthrough"]["outcome"] == "success"


def test_context_reaches_the_model_in_the_system_prompt() -> None:
    from strands_agui.runtime.building.run_agent import CONTEXT_HEADING, build_run_agent
    from tests.support.scenarios import run_input

    wire = run_input().model_dump(mode="json", by_alias=True)
    data = type(run_input()).model_validate({**wire, "context": [{"description": "user timezone",
                                                                    "value": "Europe/Paris"}]})
    template = BY_NAME["plain_text"].agent()
    template.system_prompt = "Be brief."
    agent = build_run_agent(template, data)
    assert agent.system_prompt == f"Be brief.\n\n{CONTEXT_HEADING}\n- user timezone: Europe/Paris"
    assert template.system_prompt == "Be brief."
