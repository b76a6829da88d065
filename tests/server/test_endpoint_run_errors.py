"""Failures during a run: an event that cannot be encoded, a crashing run and a run without a terminal event each
end with exactly one RUN_ERROR, and the run's generator is closed.

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); helpers in ``tests/support/``.
"""

from __future__ import annotations

import threading

import pytest
from ag_ui.core import CustomEvent, RunStartedEvent
from strands import Agent, tool
from strands.hooks import AfterInvocationEvent

from strands_agui.config import StrandsAgentConfig, ToolBehavior
from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import check_official_client_sse
from tests.support.agents import ScriptedRun
from tests.support.live import LiveServer
from tests.support.servers import tolerates
from tests.support.wire import FRAMINGS, SSE_HEADERS, events_in, parse_sse, post_sse, run_input, types

pytestmark = pytest.mark.usefixtures("no_server_errors")


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


# The run is stopped at Strands' next await (never closed from outside while suspended), so OpenTelemetry logs
# no "Failed to detach context" (no_server_errors; tests/server/observability/test_tracing.py with tracing on).
def test_unserializable_event_ends_the_run_with_encoding_error() -> None:
    finished = threading.Event()
    behavior = ToolBehavior(state_from_result=lambda ctx: {"checked_at": object()})
    config = StrandsAgentConfig(tool_behaviors={"lookup": behavior})
    script = [[ToolUse("lookup", {"city": "Rome"})], [Text("never streamed")]]
    template = Agent(model=ScriptedModel(script), tools=[lookup], callback_handler=None)
    template.hooks.add_callback(AfterInvocationEvent, lambda event: finished.set())
    with LiveServer(create_strands_app(StrandsAgent(template, config=config))) as server:
        response = post_sse(server.url + "/", run_input())
    assert response.status_code == 200
    events, _ = parse_sse(response.content)
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "ENCODING_ERROR"
    assert "STATE_SNAPSHOT" in events[-1]["message"]
    assert "never streamed" not in response.text
    assert [e["type"] for e in events].count("RUN_ERROR") == 1
    assert finished.wait(2), "the Strands stream was not closed"
    check_official_client_sse(response.content)


@pytest.mark.parametrize("accept", FRAMINGS)
def test_encoding_error_closes_the_run_generator(accept: str) -> None:
    started = RunStartedEvent(thread_id="thread-1", run_id="run-1")
    bad = CustomEvent(name="bad", value=object())  # no JSON for this
    agent = ScriptedRun([started, bad, CustomEvent(name="after", value=1)])
    with LiveServer(create_strands_app(agent)) as server:
        response = post_sse(server.url + "/", run_input(), {**SSE_HEADERS, "Accept": accept})
    events = events_in(response.content, accept)
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1]["code"] == "ENCODING_ERROR" and "CUSTOM" in events[1]["message"]
    assert agent.closed.is_set()


@tolerates("strands_agui.server.transport.streaming")  # the endpoint logs the crash with its traceback
@pytest.mark.parametrize("accept", FRAMINGS)
def test_a_crashing_run_ends_with_run_error_not_a_traceback(accept: str) -> None:
    agent = ScriptedRun([RunStartedEvent(thread_id="thread-1", run_id="run-1")], RuntimeError("boom"))
    with LiveServer(create_strands_app(agent)) as server:
        response = post_sse(server.url + "/", run_input(), {**SSE_HEADERS, "Accept": accept})
    events = events_in(response.content, accept)
    assert response.status_code == 200
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1] == {"type": "RUN_ERROR", "message": "RuntimeError: boom", "code": "ADAPTER_ERROR"}
    assert b"Traceback" not in response.content
    assert agent.closed.is_set()


def test_a_run_without_terminal_event_still_ends_with_one() -> None:
    agent = ScriptedRun([RunStartedEvent(thread_id="thread-1", run_id="run-1")])
    with LiveServer(create_strands_app(agent)) as server:
        events, _ = parse_sse(post_sse(server.url + "/", run_input()).content)
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1]["code"] == "ADAPTER_ERROR" and "without RUN_FINISHED" in events[1]["message"]
