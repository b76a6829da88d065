"""Issue 29 item 7: the run's trace reaches the client, and feedback on an answer is kept and traced.

Real runs over HTTP (uvicorn on loopback) with a real SDK TracerProvider and its in-memory exporter: RUN_STARTED
carries ``metadata.traceId`` / ``spanId`` of the run's ``agui.run`` span (what the official clients 1.0 and
0.0.59 hold), and ``POST {path}/threads/{id}/feedback`` is principal-scoped, validated (4xx naming the field),
kept with the thread and recorded as an ``agui.feedback`` event under the run's span."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from strands import Agent

from strands_agui import FileSessions, StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.oracles import LEGACY, assert_valid_sse, check_official_client_sse
from tests.support.live import LiveServer
from tests.support.observability import recorded_spans, run_span
from tests.support.principal_app import principal
from tests.support.resumable import SSE, frames, run_body

ALICE, BOB = {"Authorization": "Bearer alice-token"}, {"Authorization": "Bearer bob-token"}


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    with recorded_spans() as exporter:
        yield exporter


def server(tmp_path: Path, *, threads: bool = True, tracing: bool = True) -> LiveServer:
    agent = StrandsAgent(Agent(model=ScriptedModel(lambda _: [Text("Forty-two.")]), callback_handler=None),
                         name="rated")
    return LiveServer(create_strands_app(agent, path="/chat", auth=principal, sessions=FileSessions(tmp_path),
                                         threads=threads, tracing=tracing))


def answered(url: str, run_id: str, *, legacy: bool = False) -> tuple[bytes, list[dict[str, Any]]]:
    body = run_body(run_id, "What is the answer?", thread_id="thread-rated")
    if legacy:
        del body["protocolVersion"]
    raw = httpx.post(url + "/chat", json=body, headers={**SSE, **ALICE}, timeout=30).content
    return raw, [event for _, event in frames(raw)]


def answer_id(events: list[dict[str, Any]]) -> str:
    return next(e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START")


def test_run_started_carries_the_runs_trace_for_both_clients(spans: InMemorySpanExporter, tmp_path: Path) -> None:
    with server(tmp_path) as live:
        raw, events = answered(live.url, "run-t1")
        legacy_raw, legacy_events = answered(live.url, "run-t2", legacy=True)
    for run_id, body, started, client in (("run-t1", raw, events[0], None), ("run-t2", legacy_raw, legacy_events[0],
                                                                             LEGACY)):
        context = run_span(spans.get_finished_spans(), run_id).get_span_context()
        ids = {"traceId": format(context.trace_id, "032x"), "spanId": format(context.span_id, "016x")}
        assert started["metadata"] == ids
        report = assert_valid_sse(body) if client is None else check_official_client_sse(body, client=client)
        assert report["run_started_metadata"] == ids


def test_no_trace_id_without_tracing(tmp_path: Path) -> None:
    with server(tmp_path, tracing=False) as live:
        _, events = answered(live.url, "run-n1")
    assert "metadata" not in events[0]


def test_feedback_is_kept_with_the_thread_and_traced_under_the_run(spans: InMemorySpanExporter,
                                                                     tmp_path: Path) -> None:
    with server(tmp_path) as live:
        _, events = answered(live.url, "run-f1")
        message = answer_id(events)
        feedback = live.url + "/chat/threads/thread-rated/feedback"
        kept = httpx.post(feedback, json={"messageId": message, "rating": "down", "comment": "Not 42."},
                          headers=ALICE)
        view = httpx.get(live.url + "/chat/threads/thread-rated", headers=ALICE).json()
        not_bobs = httpx.post(feedback, json={"messageId": message, "rating": "up"}, headers=BOB)
    run = run_span(spans.get_finished_spans(), "run-f1")
    assert kept.status_code == 200, kept.text
    entry = kept.json()
    assert entry["traceId"] == format(run.get_span_context().trace_id, "032x") == events[0]["metadata"]["traceId"]
    assert {k: entry[k] for k in ("messageId", "rating", "comment")} == {"messageId": message, "rating": "down",
                                                                         "comment": "Not 42."}
    assert [{k: f[k] for k in ("messageId", "rating", "comment")} for f in view["feedback"]] == [
        {"messageId": message, "rating": "down", "comment": "Not 42."}]
    [span] = [s for s in spans.get_finished_spans() if s.name == "agui.feedback"]
    assert span.parent is not None and span.parent.span_id == run.get_span_context().span_id
    assert span.context.trace_id == run.get_span_context().trace_id
    [event] = span.events
    assert (event.name, dict(event.attributes or {})) == ("agui.feedback", {
        "agui.message.id": message, "agui.feedback.rating": "down", "agui.feedback.comment": "Not 42."})
    assert (span.attributes or {})["agui.run.id"] == "run-f1"
    assert not_bobs.status_code == 404  # another principal's thread is no thread


@pytest.mark.parametrize(("body", "loc"), [
    ({"messageId": "m", "rating": "meh"}, ["body", "rating"]),
    ({"rating": "up"}, ["body", "messageId"]),
    ({"messageId": "m", "rating": "up", "comment": "x" * 2001}, ["body", "comment"]),
    ({"messageId": "m", "rating": "up", "stars": 5}, ["body", "stars"]),
    ({"messageId": "not-in-the-thread", "rating": "up"}, ["body", "messageId"]),
])
def test_bad_feedback_is_a_422_naming_the_field(tmp_path: Path, body: dict[str, Any], loc: list[str]) -> None:
    with server(tmp_path) as live:
        answered(live.url, "run-v1")
        response = httpx.post(live.url + "/chat/threads/thread-rated/feedback", json=body, headers=ALICE)
    assert response.status_code == 422
    assert [d["loc"] for d in response.json()["detail"]] == [loc]


def test_feedback_needs_the_thread(tmp_path: Path) -> None:
    with server(tmp_path, threads=False) as live:
        _, events = answered(live.url, "run-o1")
        off = httpx.post(live.url + "/chat/threads/thread-rated/feedback",
                         json={"messageId": answer_id(events), "rating": "up"}, headers=ALICE)
        bad_id = httpx.post(live.url + "/chat/threads/bad%20id/feedback", json={"messageId": "m", "rating": "up"},
                            headers=ALICE)
        anonymous = httpx.post(live.url + "/chat/threads/thread-rated/feedback",
                               json={"messageId": "m", "rating": "up"})
    assert off.status_code == 404
    assert bad_id.status_code == 422 and bad_id.json()["detail"][0]["loc"] == ["path", "threadId"]
    assert anonymous.status_code == 401
