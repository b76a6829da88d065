"""The runtime's features as the endpoint serves them: what a run's providers are handed of the HTTP request,
the capabilities route, the cancel route on a background task that outlived its run, and what the request's
checks accept of what a run left the client (the runtime's own tests, ``tests/runtime``, never import the
server: ``tests/e2e/test_layers.py``)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from ag_ui.core import RunAgentInput
from strands import Agent

from strands_agui import StrandsAgent, StrandsAgentConfig
from strands_agui.server.app import create_strands_app
from strands_agui.server.request.validation import RequestLimits, run_input_errors
from strands_agui.tooling.scripted import Reasoning, RedactedReasoning, ScriptedModel, Text
from tests.oracles import assert_valid_stream
from tests.support.background import card, reader, sent, slow_report_agent, thread_input
from tests.support.live import LiveServer
from tests.support.scenarios import BY_NAME, get_time, get_weather, run_input


def test_the_cancel_route_after_run_finished_cancels_the_task_that_outlived_the_run() -> None:
    """``POST .../runs/{runId}/cancel`` after the run's RUN_FINISHED cancels its task still working
    (202, where it was 409); the thread's next run shows the card ``cancelled`` and the model reads it."""
    import httpx

    from tests.support.wire import sse_events

    agent = StrandsAgent(slow_report_agent(30, reader, wait_for_completion=False))  # type: ignore[arg-type]
    first = [{"id": "u-1", "role": "user", "content": "Write a report please"}]
    with LiveServer(create_strands_app(agent, resumable=True)) as server:
        def post(run_id: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
            body = thread_input("thread-cancel", run_id, messages).model_dump(by_alias=True, mode="json")
            response = httpx.post(server.url + "/", json=body, headers={"Accept": "text/event-stream"}, timeout=30)
            return sse_events(response.text)

        run1 = post("run-c1", first)
        assert run1[-1]["type"] == "RUN_FINISHED" and run1[-1]["outcome"] == {"type": "success"}
        held = assert_valid_stream(run1)
        assert card(held)["status"] in ("queued", "working")
        answer = httpx.post(server.url + "/runs/run-c1/cancel", timeout=10)
        assert answer.status_code == 202, answer.text
        again_unknown = httpx.post(server.url + "/runs/run-nope/cancel", timeout=10)
        holds = [*held["messages"], {"id": "u-2", "role": "user", "content": "Any news?"}]
        run2 = post("run-c2", sent(holds))
    assert again_unknown.status_code == 404
    report = assert_valid_stream(run2, input={"messages": holds})
    assert card(report)["status"] == "cancelled"
    answers = [m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content")]
    assert answers[-1] == "The report was cancelled."




def test_capabilities_are_served_next_to_the_run() -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from strands_agui import StrandsAgent, StrandsAgentConfig, ToolBehavior, add_strands_fastapi_endpoint

    app = FastAPI()
    config = StrandsAgentConfig(tool_behaviors={"get_weather": ToolBehavior(interrupt_on_call=True)})
    add_strands_fastapi_endpoint(app, StrandsAgent(BY_NAME["backend_tool"].agent(), name="weather", config=config),
                                 "/agent")
    body = TestClient(app).get("/agent/capabilities").json()
    assert body["identity"] == {"name": "weather", "type": "strands", "provider": "scriptedmodel"}
    assert [t["name"] for t in body["tools"]["items"]] == ["get_weather"]
    assert body["humanInTheLoop"] == {"supported": True, "approvals": True, "interrupts": True}
    assert body["multiAgent"] == {"supported": False}
    assert body["reasoning"]["supported"] and body["multimodal"]["output"] == {"image": True}




def test_a_config_provider_sees_the_http_request_when_served() -> None:
    """Served through the endpoint, ``StrandsAgentConfig.invocation_state_provider`` gets the real request."""
    from fastapi.testclient import TestClient
    from strands import Agent, tool

    from strands_agui import StrandsAgent, StrandsAgentConfig
    from strands_agui.server.app import create_strands_app
    from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
    from tests.support.scenarios import run_input

    seen: list[str] = []

    @tool(context=True)
    def whoami(tool_context: Any) -> str:
        """Report the caller."""
        seen.append(tool_context.invocation_state["tenant"])
        return "ok"

    def provider(request: Any, input_data: Any) -> dict[str, Any]:
        return {"tenant": request.headers["x-tenant"]}

    agent = Agent(model=ScriptedModel([[ToolUse("whoami", {})], [Text("Done.")]]), tools=[whoami],
                  callback_handler=None)
    app = create_strands_app(StrandsAgent(agent, config=StrandsAgentConfig(invocation_state_provider=provider)))
    with TestClient(app) as http:
        response = http.post("/", json=run_input().model_dump(by_alias=True, exclude_none=True),
                             headers={"x-tenant": "acme", "accept": "text/event-stream"})
    assert response.status_code == 200 and '"RUN_FINISHED"' in response.text
    assert seen == ["acme"]


def test_the_endpoint_hands_the_tool_selection_provider_its_request() -> None:
    seen: list[str | None] = []

    def by_header(request: Any, input_data: RunAgentInput) -> list[str]:
        seen.append(request.headers.get("x-plan"))
        return ["get_weather"]

    agent = Agent(model=ScriptedModel([[Text("ok")]]), tools=[get_weather, get_time], callback_handler=None)
    app = create_strands_app(StrandsAgent(agent, name="sel",
                                          config=StrandsAgentConfig(template_tools_provider=by_header)))
    with LiveServer(app) as server:
        body = run_input().model_dump(mode="json", by_alias=True)
        response = httpx.post(server.url + "/", json=body, headers={"x-plan": "basic"}, timeout=30)
    assert response.status_code == 200 and '"RUN_FINISHED"' in response.text
    assert seen == ["basic"]


@pytest.mark.parametrize("block", [RedactedReasoning(b"opaque-reasoning"), Reasoning("Greet.", signature="c2ln")])
async def test_the_endpoint_accepts_the_reasoning_a_client_kept(block: Any) -> None:
    """The official client's messages after a run that streamed (redacted or signed) reasoning pass the endpoint's
    checks as they are (what the model then reads of them: ``tests/runtime/building/test_conversation.py``)."""
    first = run_input("think")
    events = [e async for e in StrandsAgent(Agent(model=ScriptedModel([[block, Text("Done.")]]),
                                                  callback_handler=None)).run(first)]
    report = assert_valid_stream(events, input=first.model_dump(by_alias=True, exclude_none=True))
    follow_up = run_input(messages=[*report["messages"], {"id": "u2", "role": "user", "content": "and again"}])
    assert not list(run_input_errors(follow_up, RequestLimits()))


def test_a_redacted_reasoning_message_needs_base64() -> None:
    data = run_input(messages=[{"id": "r1", "role": "reasoning", "content": "", "encryptedValue": "not base64!"},
                               {"id": "u1", "role": "user", "content": "hi"}])
    [error] = run_input_errors(data, RequestLimits())
    assert error["loc"] == ("body", "messages", 0, "encryptedValue") and "base64" in error["msg"]
