"""A served run is one OpenTelemetry span: real runs over HTTP (uvicorn on loopback) with a real SDK
TracerProvider and its in-memory exporter. The span carries the run's ids, agent, outcome, error code and token
usage, the machine's moves as its events, and Strands' own spans (``invoke_agent``, a Swarm's) below it; a run
that is cancelled, disconnected, halted on a frontend tool or cut short by an event that cannot be encoded ends
its span with the right outcome and logs no "Failed to detach context"."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from strands import Agent, tool
from strands.hooks import AfterInvocationEvent

from strands_agui import StrandsAgent, StrandsAgentConfig, ToolBehavior
from strands_agui.examples.multi_agent import build_agent
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import Fail, ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_sse
from tests.support.live import LiveServer
from tests.support.observability import descends_from, detach_errors, recorded_spans, run_span
from tests.support.resumable import SSE, cut, frames, run_body


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    with recorded_spans() as exporter:
        yield exporter


@pytest.fixture(autouse=True)
def _logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


def served(model: ScriptedModel, name: str, config: StrandsAgentConfig | None = None, **settings: Any) -> LiveServer:
    agent = StrandsAgent(Agent(model=model, tools=[lookup], callback_handler=None), name=name, config=config)
    return LiveServer(create_strands_app(agent, **settings))


def ended_span(spans: InMemorySpanExporter, run_id: str, seconds: float = 10) -> ReadableSpan:
    """The run's span once it has ended (the response ends after the client may have stopped reading)."""
    deadline = time.monotonic() + seconds
    while not any(s.name == "agui.run" and (s.attributes or {}).get("agui.run.id") == run_id
                  for s in spans.get_finished_spans()):
        assert time.monotonic() < deadline, f"no span for run {run_id}"
        time.sleep(0.02)
    return run_span(spans.get_finished_spans(), run_id)


def moves(span: ReadableSpan) -> list[tuple[str, str]]:
    """(trigger, state) of each span event of the run's own machine."""
    return [(e.name, str((e.attributes or {})["agui.state"])) for e in span.events
            if "agui.subagent" not in (e.attributes or {})]


def test_a_served_run_is_one_span_with_its_moves_and_strands_spans_below_it(
        spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture) -> None:
    model = ScriptedModel([[Text("Let me look."), ToolUse("lookup", {"city": "Rome"})], [Text("Rome is sunny.")]])
    with served(model, "traced_agent") as server:
        response = httpx.post(server.url + "/", json=run_body("trace-1", thread_id="thread-t"), headers=SSE)
        span = ended_span(spans, "trace-1")
    everything = spans.get_finished_spans()
    assert span.attributes is not None
    assert {k: span.attributes[k] for k in ("agui.thread.id", "agui.run.id", "agui.agent.name", "agui.run.outcome")} \
        == {"agui.thread.id": "thread-t", "agui.run.id": "trace-1", "agui.agent.name": "traced_agent",
            "agui.run.outcome": "success"}
    usage = frames(response.content)[-1][1]["usage"][0]  # what RUN_FINISHED told the client: 2 calls of 10 + 10
    assert (span.attributes["gen_ai.usage.input_tokens"], span.attributes["gen_ai.usage.output_tokens"],
            span.attributes["gen_ai.usage.total_tokens"]) == (usage["inputTokens"], usage["outputTokens"], 40)
    assert "agui.error.code" not in span.attributes and span.status.status_code is StatusCode.UNSET
    assert moves(span) == [("start_run", "ready"), ("open_text", "streaming_text"), ("close_text", "ready"),
                           ("open_tool_call", "in_tool_call"), ("close_tool_call", "ready"),
                           ("end_turn", "awaiting_result"), ("receive_results", "ready"),
                           ("open_text", "streaming_text"), ("close_text", "ready"), ("end_turn", "ready"),
                           ("finish", "finished")]
    deltas = sum(e["type"] in ("TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS") for _, e in frames(response.content))
    assert span.attributes["agui.deltas"] == deltas  # counted, not one span event each
    invoke = [s for s in everything if s.name.startswith("invoke_agent")]
    assert len(invoke) == 1 and invoke[0].parent is not None
    assert invoke[0].parent.span_id == span.context.span_id  # Strands' own span is the run span's child
    strands_spans = [s for s in everything if s.name.startswith(("chat", "execute_tool", "execute_event_loop"))]
    assert len(strands_spans) >= 4 and all(descends_from(s, span, everything) for s in strands_spans)
    assert span.start_time <= invoke[0].start_time and invoke[0].end_time <= span.end_time
    assert_valid_sse(response.content, fail_on_run_error=True)
    assert not detach_errors(caplog.records)


def test_a_failed_run_span_has_the_error_code_and_status(spans: InMemorySpanExporter) -> None:
    model = ScriptedModel([[Text("Starting"), Fail(RuntimeError("the model fell over"))]])
    with served(model, "failing_agent") as server:
        response = httpx.post(server.url + "/", json=run_body("trace-err"), headers=SSE)
        span = ended_span(spans, "trace-err")
    terminal = frames(response.content)[-1][1]
    assert terminal["type"] == "RUN_ERROR"
    assert span.attributes is not None
    assert (span.attributes["agui.run.outcome"], span.attributes["agui.error.code"]) == ("error", terminal["code"])
    assert span.status.status_code is StatusCode.ERROR and span.status.description == terminal["code"]
    assert moves(span)[-1] == ("fail", "errored")


def test_a_frontend_tool_halt_ends_the_span_and_logs_no_detach_error(
        spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture) -> None:
    model = ScriptedModel([[Text("Asking you"), ToolUse("ask_user", {"q": "which city?"})], [Text("never")]])
    body = {**run_body("trace-halt"), "tools": [{"name": "ask_user", "description": "Ask the user",
                                                 "parameters": {"type": "object"}}]}
    with served(model, "halting_agent") as server:
        response = httpx.post(server.url + "/", json=body, headers=SSE)
        span = ended_span(spans, "trace-halt")
    assert "never" not in response.text
    assert span.attributes is not None and span.attributes["agui.run.outcome"] == "success"
    assert ("end_turn", "halted") in moves(span) and moves(span)[-1] == ("finish", "finished")
    assert not detach_errors(caplog.records)


def test_a_disconnected_run_ends_its_span_and_logs_no_detach_error(
        spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture) -> None:
    model = ScriptedModel([[Text(" ".join(f"word{i}" for i in range(400)))]], delay=0.02)
    with served(model, "left_agent") as server:
        cut(server.url + "/", run_body("trace-cut"), after=4)
        span = ended_span(spans, "trace-cut")
    assert span.attributes is not None and span.attributes["agui.run.outcome"] == "disconnected"
    assert "agui.error.code" not in span.attributes
    assert moves(span)[:2] == [("start_run", "ready"), ("open_text", "streaming_text")]
    assert [s for s in spans.get_finished_spans() if s.name.startswith("invoke_agent")], "Strands' span did not end"
    assert not detach_errors(caplog.records)


def test_a_run_cancelled_by_id_ends_its_span_cancelled_and_logs_no_detach_error(
        spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture) -> None:
    model = ScriptedModel([[Text(" ".join(f"word{i}" for i in range(400)))]], delay=0.02)
    with served(model, "cancelled_agent", resumable=True) as server:
        with httpx.stream("POST", server.url + "/", json=run_body("trace-cancel"), headers=SSE, timeout=30) as live:
            chunks = live.iter_raw()
            head = next(chunks)
            assert httpx.post(server.url + "/runs/trace-cancel/cancel").status_code == 202
            rest = b"".join(chunks)
        span = ended_span(spans, "trace-cancel")
    assert frames(head + rest)[-1][1]["outcome"] == {"type": "cancelled"}
    assert span.attributes is not None and span.attributes["agui.run.outcome"] == "cancelled"
    assert ("cancel", "halted") in moves(span)
    assert not detach_errors(caplog.records)


@pytest.mark.parametrize("resumable", [False, True])
def test_an_event_that_cannot_be_encoded_ends_the_run_without_detach_errors(
        spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture, resumable: bool) -> None:
    """The driver used to close Strands' suspended stream from outside here (its inner generators then went to
    the garbage collector and OpenTelemetry logged "Failed to detach context"); it now stops the run at Strands'
    next await instead, as a disconnect does."""
    finished = threading.Event()
    config = StrandsAgentConfig(tool_behaviors={"lookup": ToolBehavior(state_from_result=lambda c: {"at": object()})})
    model = ScriptedModel([[ToolUse("lookup", {"city": "Rome"})], [Text("never streamed")]], delay=0.01)
    agent = Agent(model=model, tools=[lookup], callback_handler=None)
    agent.hooks.add_callback(AfterInvocationEvent, lambda event: finished.set())
    with LiveServer(create_strands_app(StrandsAgent(agent, config=config), resumable=resumable)) as server:
        response = httpx.post(server.url + "/", json=run_body(f"trace-enc-{resumable}"), headers=SSE)
        span = ended_span(spans, f"trace-enc-{resumable}")
        assert finished.wait(5), "the Strands run was not stopped"
    assert frames(response.content)[-1][1]["code"] == "ENCODING_ERROR"
    assert "never streamed" not in response.text
    assert span.attributes is not None
    assert (span.attributes["agui.run.outcome"], span.attributes["agui.error.code"]) == ("error", "ENCODING_ERROR")
    assert not detach_errors(caplog.records)


def test_a_swarm_span_and_the_subagents_moves_are_under_the_run_span(spans: InMemorySpanExporter) -> None:
    app = create_strands_app(build_agent({"STRANDS_AGUI_SCRIPTED_DELAY": "0"}), path="/team")
    with LiveServer(app) as server:
        response = httpx.post(server.url + "/team", json=run_body("trace-team"), headers=SSE, timeout=30)
        span = ended_span(spans, "trace-team")
    everything = spans.get_finished_spans()
    swarm = [s for s in everything if s.parent is not None and s.parent.span_id == span.context.span_id]
    assert swarm and all(s.name != "agui.run" for s in swarm)  # Strands' multi-agent span, a direct child
    invoked = [s for s in everything if s.name.startswith("invoke_agent")]
    assert len(invoked) >= 2 and all(descends_from(s, span, everything) for s in invoked)
    started = [(e.attributes or {})["agui.subagent"] for e in span.events
               if e.name == "start_run" and "agui.subagent" in (e.attributes or {})]
    assert started == [e["name"] for _, e in frames(response.content) if e["type"] == "SUBAGENT_STARTED"]
    assert len(started) >= 2


def test_tracing_false_makes_no_run_span(spans: InMemorySpanExporter) -> None:
    with served(ScriptedModel([[Text("untraced")]]), "untraced_agent", tracing=False) as server:
        assert httpx.post(server.url + "/", json=run_body("trace-off"), headers=SSE).status_code == 200
        time.sleep(0.2)
    everything = spans.get_finished_spans()
    assert not [s for s in everything if s.name == "agui.run"]
    assert len([s for s in everything if s.name.startswith("invoke_agent")]) == 1  # traced all the same


def test_an_inspected_run_traces_the_same_moves_it_shows_the_console(spans: InMemorySpanExporter) -> None:
    body = {**run_body("trace-inspect"), "forwardedProps": {"strandsAgui": {"inspect": True}}}
    with served(ScriptedModel([[Text("inspected")]]), "inspected_agent", inspect=True) as server:
        response = httpx.post(server.url + "/", json=body, headers=SSE)
        span = ended_span(spans, "trace-inspect")
    steps = [step for _, e in frames(response.content) if e["type"] == "CUSTOM" and e["name"] == "strands_agui.trace"
             for step in e["value"]["steps"]]
    shown = [(t["trigger"], t["state"]) for step in steps for t in step["transitions"] if t["trigger"] != "text_delta"]
    assert moves(span) == shown


def test_a_traced_resumable_run_started_keeps_its_id_and_protocol_version(spans: InMemorySpanExporter) -> None:
    """RUN_STARTED gets the run's trace ids; on a resumable run it keeps its event id and, for a 1.0 client, its
    protocolVersion (a copy of the event, made to add the ids, left the stream without either)."""
    with served(ScriptedModel([[Text("Hello there.")]]), "traced_resumable", resumable=True) as server:
        body = {**run_body("trace-started"), "protocolVersion": "1.0"}
        response = httpx.post(server.url + "/", json=body, headers=SSE, timeout=30)
        span = ended_span(spans, "trace-started")
    event_id, started = frames(response.content)[0]
    assert event_id == "trace-started:1"
    assert started["type"] == "RUN_STARTED" and started["protocolVersion"] == "1.0"
    assert started["metadata"]["traceId"] == format(span.get_span_context().trace_id, "032x")
    assert_valid_sse(response.content, fail_on_run_error=True)
