"""AgentCore's ``/ws`` over a real loopback server (``create_agentcore_app``): a run per RunAgentInput, bad input
closed with 1003 and a reason a close frame can carry, cancel and resume on the same socket, a client that leaves
cancels its run, protocol pings while the model is silent. Every stream goes through both oracles."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.frames import Opcode

from strands_agui import FileSessions, create_agentcore_app
from strands_agui.server.agentcore.socket_runs import MAX_REASON_BYTES
from strands_agui.server.transport.inflight import IN_FLIGHT
from tests.oracles import assert_valid_stream
from tests.support import agentcore_apps
from tests.support.agentcore import agentcore_headers, frames_until_text, socket_to
from tests.support.hostile import CASES
from tests.support.live import LiveServer
from tests.support.principal_app import principal
from tests.support.servers import tolerates, wait_until
from tests.support.wire import SSE_HEADERS, run_input

pytestmark = pytest.mark.usefixtures("no_server_errors")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    sessions = FileSessions(tmp_path_factory.mktemp("sessions"))
    with LiveServer(create_agentcore_app(agentcore_apps.agent, sessions=sessions, max_body_bytes=4096)) as server:
        server.server.config.ws_ping_interval = 0.3  # read when a socket opens: pings during a silent run
        yield server.url


def body(text: str, run_id: str = "run-1", thread_id: str = "thread-ws", **extra: Any) -> dict[str, Any]:
    return {**run_input(text, thread_id, run_id), "protocolVersion": "1.0", **extra}


def test_a_run_goes_out_one_event_per_text_frame_of_bare_json_then_closes_1000(base: str) -> None:
    with socket_to(base, agentcore_headers("session-a")) as socket:
        events = socket.run(body("weather in Paris?"))
        assert socket.closed() == (1000, "")
    assert all(frame.startswith("{") and "\n" not in frame for frame in socket.frames)  # bare JSON, no data:
    report = assert_valid_stream(events)
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "success"
    assert "Done:" in json.dumps(report["messages"]) and "sunny" in json.dumps(report["messages"])


def test_the_sdks_data_framing_is_read_too(base: str) -> None:
    with socket_to(base) as socket:
        events = socket.run("data: " + json.dumps(body("hello")) + "\n\n")
        assert socket.closed() == (1000, "")
    assert_valid_stream(events)
    assert "echo hello" in "".join(e.get("delta", "") for e in events)


LONG = {"threadId": "t", "runId": "r", "messages": [{"id": f"m{i}" + "x" * 50, "role": "user", "content": 5}
                                                     for i in range(30)]}  # (an unknown role is skipped, not refused)


@pytest.mark.parametrize(("message", "code", "starts"), [
    (json.dumps(LONG), 1003, "invalid RunAgentInput: messages.0"),  # pydantic's whole message: kilobytes
    (json.dumps({"threadId": "t", "runId": "r"}), 1003, "invalid RunAgentInput: messages: Field required"),
    (json.dumps(body("hi", thread_id="no spaces allowed")), 1003, "invalid RunAgentInput: threadId"),
    ("{not json", 1003, "not valid JSON"),
    ("[1, 2]", 1003, "a message is a JSON object"),
    (json.dumps({"type": "resume"}), 1003, "unknown message type 'resume'"),
    (json.dumps(body("x" * 5000)), 1009, "message larger than 4096 bytes"),
    (b"\x00binary", 1003, "binary frames are not read"),
], ids=["long-pydantic-error", "missing-field", "bad-id", "not-json", "not-object", "unknown-type", "too-big",
        "binary"])
def test_bad_input_closes_with_a_reason_a_close_frame_can_carry(base: str, message: str | bytes, code: int,
                                                                 starts: str) -> None:
    with socket_to(base) as socket:
        socket.connection.send(message)
        closed, reason = socket.closed()
    assert closed == code, (closed, reason)
    assert reason.startswith(starts), reason
    assert len(reason.encode()) <= MAX_REASON_BYTES


def test_every_body_the_run_route_refuses_closes_the_socket_before_a_run() -> None:
    """The bad-request battery's bodies (``tests/support/hostile.py``) as a socket's first message: 1009 where the
    route says 413, else 1003 (a binary frame where the bytes are no UTF-8 text), each with a reason a close frame
    can carry, and no run."""
    cases = [case for case in CASES if case.method == "POST" and case.content is not None and not case.chunked
             and case.headers == SSE_HEADERS and case.status in (413, 422)]
    assert len(cases) > 20
    with LiveServer(create_agentcore_app(agentcore_apps.agent)) as server:
        for case in cases:
            assert case.content is not None
            try:
                message: str | bytes = case.content.decode()
            except UnicodeDecodeError:
                message = case.content
            with socket_to(server.url) as socket:
                socket.connection.send(message)
                code, reason = socket.closed()
            assert code == (1009 if case.status == 413 else 1003), (case.name, code, reason)
            assert reason and len(reason.encode()) <= MAX_REASON_BYTES, case.name
    assert IN_FLIGHT.runs == 0


def test_a_second_input_while_a_run_is_in_flight_closes_1008_and_cancels_it(base: str) -> None:
    with socket_to(base) as socket:
        socket.send(body("slow please"))
        first = socket.connection.recv(timeout=10)
        socket.send(body("again", run_id="run-2"))
        closed, reason = socket.closed()
    assert json.loads(first)["type"] == "RUN_STARTED"
    assert closed == 1008 and reason.startswith("one run at a time"), reason
    wait_until(lambda: IN_FLIGHT.runs == 0, seconds=3)  # stopped: the slow run alone takes 4 s


def test_cancel_on_the_socket_ends_the_run_cancelled_then_closes_1000(base: str) -> None:
    started = time.monotonic()
    with socket_to(base) as socket:
        events = socket.run(body("slow please"), cancel_after=3)
        assert socket.closed() == (1000, "")
    assert time.monotonic() - started < 3  # the slow run alone takes 4 s
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
    assert_valid_stream(events)


def test_an_interrupt_is_resumed_on_the_same_socket(base: str) -> None:
    first = body("budget for Porto", thread_id="thread-resume")
    with socket_to(base) as socket:
        paused = socket.run(first)
        assert paused[-1]["outcome"]["type"] == "interrupt", paused[-1]  # the socket stays open for the answer
        held = assert_valid_stream(paused, input=first)["messages"]
        (interrupt,) = paused[-1]["outcome"]["interrupts"]
        resume = {**body("", run_id="run-2", thread_id="thread-resume"), "messages": held,
                  "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": 300}]}
        resumed = socket.run(resume)
        assert socket.closed() == (1000, "")
    assert resumed[-1]["type"] == "RUN_FINISHED" and resumed[-1]["outcome"]["type"] == "success", resumed[-1]
    report = assert_valid_stream(resumed, input=resume)
    assert "The budget for Porto is 300 EUR." in json.dumps(report["messages"])


FRONTEND_TOOL = {"name": "change_background", "description": "Change the page's background",
                 "parameters": {"type": "object", "properties": {"color": {"type": "string"}}}}


def test_a_frontend_tools_result_is_sent_on_the_same_socket(base: str) -> None:
    first = body("paint it", thread_id="thread-paint", tools=[FRONTEND_TOOL])
    with socket_to(base) as socket:
        halted = socket.run(first)
        outcome = halted[-1]["outcome"]
        assert outcome["type"] == "success" and outcome["pendingToolCallIds"], outcome  # the socket stays open
        held = assert_valid_stream(halted, input=first)["messages"]
        answer = {"id": "tool-1", "role": "tool", "toolCallId": outcome["pendingToolCallIds"][0],
                  "content": "background is blue"}
        second = {**body("", run_id="run-2", thread_id="thread-paint", tools=[FRONTEND_TOOL]),
                  "messages": [*held, answer]}
        answered = socket.run(second)
        assert socket.closed() == (1000, "")
    assert "Done: background is blue" in json.dumps(assert_valid_stream(answered, input=second)["messages"])


def test_a_client_that_leaves_cancels_its_run(base: str) -> None:
    with socket_to(base) as socket:
        socket.send(body("slow please"))
        assert json.loads(socket.connection.recv(timeout=10))["type"] == "RUN_STARTED"
        wait_until(lambda: IN_FLIGHT.runs == 1, seconds=3)
    wait_until(lambda: IN_FLIGHT.runs == 0, seconds=3)  # the slow run alone takes 4 s


def test_the_protocol_pings_while_the_model_is_silent(base: str) -> None:
    opcodes = frames_until_text(base, body("silent now"), seconds=agentcore_apps.SILENT_SECONDS + 3, texts=3)
    first_text = opcodes.index(Opcode.TEXT)
    assert Opcode.PING in opcodes[first_text:], opcodes  # after RUN_STARTED, before the answer


def test_resumable_settings_leave_the_socket_as_it_is() -> None:
    """A resumable endpoint: /invocations numbers its events; the socket's runs are the socket's (no ids)."""
    with LiveServer(create_agentcore_app(agentcore_apps.agent, resumable=True)) as server:
        with socket_to(server.url) as socket:
            events = socket.run(body("hello", thread_id="thread-resumable"))
            assert socket.closed() == (1000, "")
    assert_valid_stream(events)


@tolerates("uvicorn.error")  # uvicorn 0.54 logs "ASGI callable returned without completing handshake" after a denial
def test_the_endpoints_auth_guards_the_upgrade_and_names_the_principal(tmp_path: Path) -> None:
    """``auth`` runs on the upgrade as on a POST: no token, 401 before the socket opens; a token, its principal's
    thread (another principal's run on the same threadId does not see it)."""
    app = create_agentcore_app(agentcore_apps.agent, auth=principal, sessions=FileSessions(tmp_path), threads=True)
    with LiveServer(app) as server:
        with pytest.raises(InvalidStatus, match="401"), socket_to(server.url):
            pass
        seen = {}
        for token, text in (("alice-token", "alice here"), ("bob-token", "bob here")):
            with socket_to(server.url, {"Authorization": f"Bearer {token}"}) as socket:
                events = socket.run(body(text, run_id=f"run-{token}", thread_id="thread-shared-id"))
                assert socket.closed() == (1000, "")
            seen[token] = json.dumps(assert_valid_stream(events)["messages"])
    assert "alice here" not in seen["bob-token"]
