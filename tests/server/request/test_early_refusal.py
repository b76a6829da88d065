"""Refusals answered from the connection (``server/request/early_refusal.py``, ``serve``'s uvicorn protocol).

A run refused for load gets the route's answer, byte for byte in what a client reads (503, ``Retry-After``, the
``OVERLOADED`` body, counted in the metrics), without the app: a counter around the app's middleware stack sees none
of them. Its body is dropped whole (a long one, a chunked one), so the connection serves what follows, pipelined
too, in order; an admitted run on it afterwards is served whole. What the app could answer otherwise goes through
it: a browser's run (``Origin``: CORS headers), an app with middleware of its own or wrapped by another ASGI
callable, a request pipelined behind an answer still being written. A check that fails there leaves the request to
the app (without that, httptools answered the client 400 "Invalid HTTP request"). Every run served is read by both
oracles as the official client holds it: a success with the agent's answer, or, for a model failing mid-stream on a
connection that carried refusals, its text and ``RUN_ERROR`` ``STRANDS_ERROR``.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request, Response
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from strands_agui.server.app import add_ping, create_strands_app
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.request.admission import AdmissionPolicy
from strands_agui.server.request.early_refusal import PROTOCOL, routes_of
from strands_agui.server.transport.inflight import IN_FLIGHT
from tests.oracles import assert_valid_sse
from tests.support.live import LiveServer
from tests.support.resumable import Gate, frames, gated_agent, run_body
from tests.support.servers import wait_until

ONE = AdmissionPolicy(max_runs=1, adaptive=False)


@pytest.fixture(autouse=True)
def idle() -> Iterator[None]:
    """No run of an earlier test is still counted in flight (a limit of 1 counts every run of the process)."""
    wait_until(lambda: IN_FLIGHT.runs == 0, 120)
    yield


class Reached:
    """Counts the requests that reach the app (wraps its middleware stack, built ahead: the app is unchanged)."""

    def __init__(self, app: FastAPI) -> None:
        self.paths: list[str] = []
        self.inner: ASGIApp = app.build_middleware_stack()
        app.middleware_stack = self

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.paths.append(f"{scope['method']} {scope['path']}")
        await self.inner(scope, receive, send)


@contextmanager
def opened_at_end(*gates: Gate) -> Iterator[None]:
    """The gates opened however the block ends (before the server stops), so no held run outlives the test."""
    try:
        yield
    finally:
        for gate in gates:
            gate.opened.set()


def gated_app(gate: Gate, policy: AdmissionPolicy = ONE, **settings: Any) -> FastAPI:
    app = FastAPI()
    add_ping(app)
    add_strands_fastapi_endpoint(app, gated_agent(gate), "/", admission=policy, metrics=True, **settings)
    return app


def post(path: str, body: bytes, *headers: str, chunked: bool = False) -> bytes:
    head = [f"POST {path} HTTP/1.1", "Host: test", "Content-Type: application/json", "Accept: text/event-stream",
            *headers]
    if chunked:
        half = len(body) // 2
        payload = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:half], body[half:])) + b"0\r\n\r\n"
        return ("\r\n".join([*head, "Transfer-Encoding: chunked"]) + "\r\n\r\n").encode() + payload
    return ("\r\n".join([*head, f"Content-Length: {len(body)}"]) + "\r\n\r\n").encode() + body


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode()


def run(run_id: str, text: str = "wait", padding: int = 0) -> bytes:
    body = run_body(run_id, text)
    if padding:
        body["forwardedProps"] = {"padding": "x" * padding}
    return json.dumps(body).encode()


class Connection:
    """One kept-alive HTTP/1.1 connection: requests written as given (pipelined when several), answers read in
    order (``Content-Length`` or chunked bodies)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.buffer = b""

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def send(self, *requests: bytes) -> None:
        self.sock.sendall(b"".join(requests))

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        assert data, "the server closed the connection"
        self.buffer += data

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        found, self.buffer = self.buffer.split(marker, 1)
        return found

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        found, self.buffer = self.buffer[:size], self.buffer[size:]
        return found

    def answer(self) -> tuple[int, dict[str, str], bytes]:
        status_line, *lines = self._until(b"\r\n\r\n").decode("latin-1").split("\r\n")
        headers: dict[str, str] = {}
        for line in lines:
            name, value = line.split(":", 1)
            assert name.lower() not in headers, f"{name} twice"
            headers[name.lower()] = value.strip()
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int(self._until(b"\r\n"), 16):
                body += self._exactly(size)
                assert self._exactly(2) == b"\r\n"
            assert self._exactly(2) == b"\r\n"
        else:
            body = self._exactly(int(headers["content-length"]))
        return int(status_line.split()[1]), headers, body


def overloaded(answer: tuple[int, dict[str, str], bytes], in_flight: int = 1) -> None:
    status, headers, body = answer
    assert status == 503, body
    assert headers["retry-after"] == "1" and headers["content-type"] == "application/json", headers
    assert "connection" not in headers and int(headers["content-length"]) == len(body)
    assert "date" in headers and headers["server"] == "uvicorn"  # uvicorn's default headers, as on every answer
    detail = json.loads(body)["detail"]
    assert detail["code"] == "OVERLOADED" and detail["cause"] == "runs_in_flight", detail
    assert detail["limit"] == 1 and detail["inFlight"] == in_flight and "nothing was started" in detail["message"]


def finished(answer: tuple[int, dict[str, str], bytes]) -> None:
    """A run served whole, as the official client holds it: a success, the gated agent's answer its last message."""
    status, _, body = answer
    assert status == 200, body
    events = [event for _, event in frames(body)]
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    report = assert_valid_sse(body, fail_on_run_error=True)
    assert report["outcome"] == "success", report
    said = [m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content")]
    assert said and said[-1] == "Through the gate.", said


def refused_count(url: str) -> float:
    line = 'strands_agui_refused_runs_total{agent="gated",cause="runs_in_flight"} '
    return next((float(text.removeprefix(line)) for text in httpx.get(f"{url}/metrics").text.splitlines()
                 if text.startswith(line)), 0.0)


def test_a_refused_run_is_answered_from_the_connection_its_body_dropped_and_the_connection_kept() -> None:
    gate = Gate()
    app = gated_app(gate)
    reached = Reached(app)
    with LiveServer(app, http=PROTOCOL) as server, opened_at_end(gate), Connection(server.port) as held, \
            Connection(server.port) as other:
        held.send(post("/", run("held")))
        gate.wait_for_entries(1)
        before = refused_count(server.url)
        seen = len(reached.paths)
        other.send(post("/", run("extra-1")))
        overloaded(other.answer())
        other.send(post("/", run("extra-2", padding=200_000)), post("/", run("extra-3"), chunked=True),
                   post("/", run("extra-4", padding=100)), get("/ping"))  # pipelined: answered in order
        for _ in range(3):
            overloaded(other.answer())
        assert other.answer()[:1] == (200,)
        assert reached.paths[seen:] == ["GET /ping"]  # none of the four refusals reached the app
        assert refused_count(server.url) == before + 4  # counted as the route counts them
        assert gate.entries == 1  # nothing of a refused run started
        gate.opened.set()
        finished(held.answer())
        wait_until(lambda: IN_FLIGHT.runs == 0, 10)
        other.send(post("/", run("after", "quick")))  # room again: the same connection's next run is served whole
        finished(other.answer())
        assert reached.paths[-1] == "POST /"


def test_a_run_pipelined_behind_an_answer_still_streaming_waits_for_it_and_goes_through_the_app() -> None:
    gate = Gate()
    app = gated_app(gate)
    reached = Reached(app)
    with LiveServer(app, http=PROTOCOL) as server, opened_at_end(gate), Connection(server.port) as connection:
        connection.send(post("/", run("first")))
        gate.wait_for_entries(1)  # the first is in flight, its answer streaming: the limit of one is reached
        connection.send(post("/", run("second", "quick")))
        time.sleep(0.3)  # its head read: a 503 now would land in the middle of the first's stream
        assert reached.paths == ["POST /"]
        gate.opened.set()
        finished(connection.answer())
        finished(connection.answer())  # answered after the first, by the app, which admitted it (room again)
        assert reached.paths == ["POST /", "POST /"]


def test_what_the_app_could_answer_otherwise_goes_through_it() -> None:
    page_gate, own_gate = Gate(), Gate()
    browser_app = create_strands_app(gated_agent(page_gate), cors_origins=["http://ui.test"], admission=ONE)
    own = gated_app(own_gate)

    @own.middleware("http")
    async def stamp(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers["x-own"] = "1"
        return response

    browser, own_reached = Reached(browser_app), Reached(own)
    with LiveServer(browser_app, http=PROTOCOL) as server, opened_at_end(page_gate), \
            Connection(server.port) as held, Connection(server.port) as other:
        held.send(post("/", run("held")))
        page_gate.wait_for_entries(1)
        other.send(post("/", run("from-a-page"), "Origin: http://ui.test"))
        answer = other.answer()
        overloaded(answer)
        assert answer[1]["access-control-allow-origin"] == "http://ui.test"  # the page can read why
        other.send(post("/", run("from-a-server")))
        overloaded(other.answer())
        assert browser.paths[-1:] == ["POST /"]  # the page's reached the app, the server's did not
        page_gate.opened.set()
        finished(held.answer())
    wait_until(lambda: IN_FLIGHT.runs == 0, 10)
    with LiveServer(own, http=PROTOCOL) as server, opened_at_end(own_gate), Connection(server.port) as held, \
            Connection(server.port) as other:
        held.send(post("/", run("held")))
        own_gate.wait_for_entries(1)
        other.send(post("/", run("extra")))
        answer = other.answer()
        overloaded(answer)
        assert answer[1]["x-own"] == "1" and own_reached.paths[-1] == "POST /"  # its middleware saw the refusal
        own_gate.opened.set()
        finished(held.answer())


def test_only_uvicorns_own_wrappers_are_looked_through_for_the_app_served() -> None:
    app = gated_app(Gate())

    class Guard:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # pragma: no cover - unserved
            await self.app(scope, receive, send)

    assert routes_of(app) is not None and set(routes_of(app) or {}) == {b"/"}
    assert routes_of(ProxyHeadersMiddleware(app)) is routes_of(app)
    assert routes_of(Guard(app)) is None  # an authentication, a rate limit: every request goes through it
    assert routes_of(FastAPI()) is None
    mounted = FastAPI()
    mounted.mount("/agui", app)
    assert routes_of(mounted) is None


def test_a_check_that_fails_before_the_app_leaves_the_request_to_the_app(caplog: pytest.LogCaptureFixture) -> None:
    """A failure of admission control in the protocol (here the store's check, once) is logged and the request goes
    to the app, whose route asks again: the run is served whole, on a connection that stays usable."""
    gate = Gate()
    app = gated_app(gate)
    reached = Reached(app)
    admission = (routes_of(app) or {})[b"/"]
    calls = []

    def store_busy() -> str | None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the store's check failed")
        return None

    admission.store_busy = store_busy
    with LiveServer(app, http=PROTOCOL) as server, opened_at_end(gate), Connection(server.port) as connection:
        connection.send(post("/", run("checked", "quick")))
        finished(connection.answer())
        connection.send(get("/ping"))
        assert connection.answer()[0] == 200
    assert len(calls) == 2 and reached.paths == ["POST /", "GET /ping"]
    assert "admission control failed before the app" in caplog.text


def test_a_run_admitted_on_a_connection_with_refusals_behind_it_that_fails_mid_stream_ends_run_error() -> None:
    """Two endpoints of one policy share its limit: while ``/`` holds the one run, ``/fails`` is refused from the
    connection; admitted afterwards on that connection, its model fails after its text, and the official client
    holds that text and ``RUN_ERROR`` with the documented ``STRANDS_ERROR``."""
    from strands import Agent

    from strands_agui import StrandsAgent
    from strands_agui.tooling.scripted import Fail, ScriptedModel, Text

    gate = Gate()
    app = gated_app(gate)
    words = Text(" ".join(f"word{i}" for i in range(20)))
    failing = StrandsAgent(Agent(model=ScriptedModel([[words, Fail(RuntimeError("the provider fell over"))]]),
                                 callback_handler=None), name="failing")
    add_strands_fastapi_endpoint(app, failing, "/fails", admission=ONE)
    reached = Reached(app)
    with LiveServer(app, http=PROTOCOL) as server, opened_at_end(gate), Connection(server.port) as held, \
            Connection(server.port) as other:
        held.send(post("/", run("held")))
        gate.wait_for_entries(1)
        other.send(post("/fails", run("refused", padding=50_000)))
        overloaded(other.answer())
        assert "POST /fails" not in reached.paths
        gate.opened.set()
        finished(held.answer())
        wait_until(lambda: IN_FLIGHT.runs == 0, 10)
        other.send(post("/fails", run("admitted")))
        status, _, body = other.answer()
    assert status == 200 and reached.paths[-1] == "POST /fails"
    report = assert_valid_sse(body)
    said = [m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content")]
    assert said and said[-1].startswith("word0 word1") and said[-1].endswith("word19"), said
    assert report["outcome"] == "run_error" and report["run_error"]["code"] == "STRANDS_ERROR", report
