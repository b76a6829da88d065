"""``create_agentcore_app`` over a real loopback server: ``GET /ping`` tells the truth (``HealthyBusy`` while a run
is in flight or background tasks are held, ``time_of_last_update`` moved only when the status changes),
``POST /invocations`` is the endpoint (SSE without ``Accept``, protobuf by ``Accept``, 4xx for bad input),
AgentCore's headers reach the run's span and the log, and the session header is no thread key."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from strands import Agent

from strands_agui import FileSessions, create_agentcore_app, create_strands_app
from strands_agui.runtime.building.background_watch import DETACHED, Held
from strands_agui.server.agentcore.contract import agentcore_app_for
from strands_agui.server.agentcore.health import process_status
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.transport.inflight import IN_FLIGHT
from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE
from tests.oracles import assert_valid_proto, assert_valid_sse
from tests.support import agentcore_apps
from tests.support.agentcore import REQUEST, SESSION, agentcore_headers, ping, socket_to
from tests.support.live import LiveServer
from tests.support.observability import recorded_spans, run_span
from tests.support.servers import wait_until
from tests.support.wire import run_input, sse_events

pytestmark = pytest.mark.usefixtures("no_server_errors")


@pytest.fixture
def quiet_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """``/ping`` reads this process's state, which other test files of the same pytest worker share: wait out
    their runs still in flight (a detached resumable run ends within a minute) and hide the background tasks they
    left held (a hold lasts ``HOLD_SECONDS``), so "idle" means idle here."""
    wait_until(lambda: IN_FLIGHT.runs == 0, 120)
    monkeypatch.setattr(DETACHED, "_by_thread", {})


def invoke(base: str, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{base}/invocations", json=body, headers=headers, timeout=30)


def test_ping_is_healthy_busy_mid_run_and_stamps_only_a_change(quiet_process: None) -> None:
    with LiveServer(create_agentcore_app(agentcore_apps.agent)) as server:
        idle = ping(server.url)
        time.sleep(1.1)  # a stamp that moved on each ping would show here
        assert ping(server.url) == idle and idle["status"] == "Healthy"
        with socket_to(server.url) as socket:
            socket.send(run_input("slow please", "thread-ping"))
            assert json.loads(socket.connection.recv(timeout=10))["type"] == "RUN_STARTED"
            busy = ping(server.url)
            time.sleep(1.1)
            assert ping(server.url) == busy
            socket.send({"type": "cancel"})
            socket.run(None)
        wait_until(lambda: ping(server.url)["status"] == "Healthy", seconds=3)
        after = ping(server.url)
    assert busy["status"] == "HealthyBusy"
    assert idle["time_of_last_update"] < busy["time_of_last_update"] <= after["time_of_last_update"]


def test_held_background_tasks_keep_the_process_busy(quiet_process: None) -> None:
    """The tasks' hold and release are stamped when this process first sees them (they carry no clock)."""
    held = Held(plugin=object(), run_id="run-bg", principal=None, cards={})
    before = process_status()
    holding = time.time()
    DETACHED.hold("thread-bg", held)
    try:
        during, again = process_status(), process_status()
    finally:
        released = time.time()
        DETACHED.release("thread-bg", held)
    after = process_status()
    assert (before.busy, during.busy, during.held, after.busy) == (False, True, 1, False)
    assert before.since <= holding <= during.since == again.since <= released <= after.since


def test_create_strands_apps_own_ping_keeps_its_answer() -> None:
    with LiveServer(create_strands_app(agentcore_apps.agent)) as server:
        assert httpx.get(f"{server.url}/ping").json() == {"status": "ok"}


@pytest.mark.parametrize("accept", [None, "text/event-stream", PROTO_MEDIA_TYPE])
def test_invocations_streams_sse_without_accept_and_protobuf_when_asked(accept: str | None) -> None:
    body = run_input("weather in Paris?", "thread-accept")
    headers = agentcore_headers("session-accept", **({"Accept": accept} if accept else {}))
    with LiveServer(create_agentcore_app(agentcore_apps.agent)) as server:
        response = invoke(server.url, body, headers)
    assert response.status_code == 200, response.text
    if accept == PROTO_MEDIA_TYPE:
        assert response.headers["content-type"] == PROTO_MEDIA_TYPE
        report = assert_valid_proto(response.content, input=body)
    else:
        assert response.headers["content-type"].startswith("text/event-stream")
        report = assert_valid_sse(response.content, input=body)
    assert "sunny" in json.dumps(report["messages"])


@pytest.mark.parametrize(("payload", "status"), [(b"{not json", 422), (b'{"threadId": 1}', 422), (b"[]", 422),
                                                 (b'{"threadId": "t", "runId": "r", "messages": "x"}', 422)])
def test_bad_input_on_invocations_is_a_4xx_with_a_message(payload: bytes, status: int) -> None:
    with LiveServer(create_agentcore_app(agentcore_apps.agent)) as server:
        response = httpx.post(f"{server.url}/invocations", content=payload,
                              headers=agentcore_headers("session-bad"), timeout=10)
    assert response.status_code == status and response.json()["detail"], response.text


def test_an_invocation_without_content_type_is_json_and_another_type_still_415() -> None:
    with LiveServer(create_agentcore_app(agentcore_apps.agent)) as server:
        bare = httpx.post(f"{server.url}/invocations", content=json.dumps(run_input()), timeout=30)
        typed = httpx.post(f"{server.url}/invocations", content=json.dumps(run_input()), timeout=30,
                           headers={"Content-Type": "text/plain"})
    assert bare.status_code == 200 and sse_events(bare.text)[-1]["type"] == "RUN_FINISHED"
    assert typed.status_code == 415 and "application/json" in typed.json()["detail"]


def test_agentcore_headers_reach_the_run_span_and_the_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="strands_agui.server.agentcore")
    with recorded_spans() as exporter, LiveServer(create_agentcore_app(agentcore_apps.agent)) as server:
        assert invoke(server.url, run_input("hi", "thread-h", "run-sse"),
                      agentcore_headers("session-h", "request-sse")).status_code == 200
        with socket_to(server.url, {SESSION: "session-h", REQUEST: "request-ws"}) as socket:
            socket.run(run_input("hi", "thread-h", "run-ws"))
        spans = exporter.get_finished_spans()
    for run_id, request in (("run-sse", "request-sse"), ("run-ws", "request-ws")):
        attributes = run_span(spans, run_id).attributes or {}
        assert (attributes["session.id"], attributes["agentcore.request.id"]) == ("session-h", request)
        assert any(request in r.getMessage() and "session-h" in r.getMessage() for r in caplog.records), request


def test_the_session_header_is_no_thread_key(tmp_path: Path) -> None:
    """Two AgentCore sessions on one threadId (same principal) are one thread: a run sending only its new message
    continues what the other session's run stored."""
    app = create_agentcore_app(agentcore_apps.agent, sessions=FileSessions(tmp_path), threads=True)
    with LiveServer(app) as server:
        first = run_input("first words", "thread-shared", "run-a")
        assert invoke(server.url, first, agentcore_headers("session-a")).status_code == 200
        second = {**run_input("second words", "thread-shared", "run-b")}
        response = invoke(server.url, second, agentcore_headers("session-b"))
    events = sse_events(response.text)
    snapshot = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")
    assert "echo first words" in json.dumps(snapshot["messages"]), snapshot
    assert_valid_sse(response.content, input=second)


def test_what_serve_agentcore_accepts() -> None:
    strands_agent = agentcore_apps.build_agent()
    one = create_strands_app(agentcore_apps.agent, max_messages=3)
    two = FastAPI()
    add_strands_fastapi_endpoint(two, agentcore_apps.agent, "/a")
    add_strands_fastapi_endpoint(two, agentcore_apps.agent, "/b")
    for target in (agentcore_apps.agent, strands_agent, one):
        paths = {getattr(route, "path", None) for route in agentcore_app_for(target, "m:x").routes}
        assert {"/invocations", "/ws", "/ping"} <= paths
    with LiveServer(agentcore_app_for(one, "m:app")) as server:  # the app's settings came along
        response = invoke(server.url, {**run_input(), "messages": [run_input()["messages"][0]] * 4}, {})
    assert response.status_code == 422 and "max_messages" in response.text
    with pytest.raises(TypeError, match="serves 2 endpoints"):
        agentcore_app_for(create_two(), "m:two")
    with pytest.raises(TypeError, match="is a FastAPI: AgentCore serves one agent"):
        agentcore_app_for(two, "m:two")
    with pytest.raises(TypeError, match="is a int"):
        agentcore_app_for(3, "m:three")
    assert isinstance(strands_agent, Agent)


def create_two() -> FastAPI:
    app = create_strands_app(agentcore_apps.agent)
    add_strands_fastapi_endpoint(app, agentcore_apps.agent, "/second")
    return app
