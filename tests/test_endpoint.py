"""The FastAPI transport (strands_agui.server.endpoint), tested over real HTTP.

Most tests talk to uvicorn on 127.0.0.1, started in a background thread (:class:`LiveServer`), so framing,
keep-alive, body limits and disconnects are observed on the wire rather than inside the ASGI app.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import fastapi.routing
import httpx
import pytest
from ag_ui.core import BaseEvent, CustomEvent, RunAgentInput, RunStartedEvent
from fastapi import Depends, FastAPI, Header, HTTPException
from starlette.middleware.cors import CORSMiddleware
from strands import Agent, tool
from strands.hooks import AfterInvocationEvent, BeforeInvocationEvent

from strands_agui.config import StrandsAgentConfig, ToolBehavior
from strands_agui.runtime.agent import StrandsAgent
from strands_agui.server.endpoint import accepts, add_strands_fastapi_endpoint, create_strands_app
from strands_agui.server.proto import PROTO_MEDIA_TYPE, decode_frames
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.live import LiveServer
from tests.oracles import assert_valid_sse, assert_valid_streams, check_official_client_sse

# ----------------------------------------------------------------------------------------- helpers


def run_input(text: str = "hi", thread_id: str = "thread-1", run_id: str = "run-1") -> dict[str, Any]:
    """A camelCase RunAgentInput with one user message."""
    return {
        "threadId": thread_id,
        "runId": run_id,
        "state": {},
        "messages": [{"id": f"user-{run_id}", "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


SSE_HEADERS = {"Accept": "text/event-stream", "Content-Type": "application/json"}
FRAMINGS = ["text/event-stream", PROTO_MEDIA_TYPE]  # every RunStream behaviour holds in both


def events_in(body: bytes, accept: str) -> list[dict[str, Any]]:
    """The events of a whole body in the framing ``accept`` asked for (SSE framing asserted exactly)."""
    return decode_frames(body) if accept == PROTO_MEDIA_TYPE else parse_sse(body)[0]


def parse_sse(raw: bytes) -> tuple[list[dict[str, Any]], list[str]]:
    """The events and comments of an SSE body, asserting the exact framing this endpoint promises:
    LF only, every frame either one ``data: <json object>`` line or one ``: comment`` line."""
    text = raw.decode("utf-8")
    assert "\r" not in text, "SSE frames must be LF-only"
    *frames, tail = text.split("\n\n")
    assert tail == "", f"unterminated frame: {tail!r}"
    events: list[dict[str, Any]] = []
    comments: list[str] = []
    for frame in frames:
        assert "\n" not in frame, f"multi-line frame: {frame!r}"
        if frame.startswith(": "):
            comments.append(frame[2:])
        else:
            assert frame.startswith("data: {"), frame
            events.append(json.loads(frame[len("data: "):]))
    return events, comments


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message["role"] == "user":
            texts = [block["text"] for block in message["content"] if "text" in block]
            if texts:
                return "".join(texts)
    return ""


def echo_model(delay: float = 0.0, words: int = 0) -> ScriptedModel:
    """Answers ``echo <last user text>`` plus ``words`` filler words, one chunk per word."""
    filler = "".join(f" w{i}" for i in range(words))
    return ScriptedModel(lambda messages: [Text(f"echo {last_user_text(messages)}{filler}")], delay=delay)


def strands_agent(model: ScriptedModel, tools: list[Any] | None = None, **kwargs: Any) -> StrandsAgent:
    return StrandsAgent(Agent(model=model, tools=tools or [], callback_handler=None), name="test_agent", **kwargs)


def post_sse(url: str, body: Any, headers: dict[str, str] | None = None, timeout: float = 10) -> httpx.Response:
    """POST and read the whole response; ``.content`` is the body exactly as sent (de-chunked)."""
    return httpx.post(url, json=body, headers=headers or SSE_HEADERS, timeout=timeout)


def tolerates(*loggers: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Mark a test whose server may log errors from ``loggers`` (see :func:`no_server_errors`)."""

    def mark(test: Callable[..., None]) -> Callable[..., None]:
        test.tolerated_loggers = frozenset(loggers)  # type: ignore[attr-defined]
        return test

    return mark


@pytest.fixture(autouse=True)
def no_server_errors(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """No test may make the server log an error (uvicorn's "Exception in ASGI application", Strands'
    OpenTelemetry "Failed to detach context", ...) unless it says so with :func:`tolerates`."""
    yield
    tolerated = getattr(request.function, "tolerated_loggers", frozenset())
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR and r.name not in tolerated]
    assert not errors, [f"{r.name}: {r.getMessage()}" for r in errors]


@pytest.fixture(scope="module")
def echo_server() -> Iterator[LiveServer]:
    with LiveServer(create_strands_app(strands_agent(echo_model()), max_body_bytes=4096)) as server:
        yield server


# ----------------------------------------------------------------------------------------- the stream


def test_stream_is_lf_framed_sse_of_one_valid_run(echo_server: LiveServer) -> None:
    with httpx.stream("POST", echo_server.url + "/", json=run_input("hello"), headers=SSE_HEADERS) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        raw = b"".join(response.iter_raw())
    events, _ = parse_sse(raw)
    assert events[0] == {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"}
    assert events[-1]["type"] == "RUN_FINISHED"
    assert text_of(events) == "echo hello"
    assert all(None not in e.values() for e in events)  # exclude_none on the wire
    report = assert_valid_sse(raw, fail_on_run_error=True)  # ag-ui-validate + the official client
    assert report["ok"] is True


def test_health_route(echo_server: LiveServer) -> None:
    response = httpx.get(echo_server.url + "/ping")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_health_route_is_optional_and_movable() -> None:
    app = create_strands_app(strands_agent(echo_model()), "/agent", health_path=None)
    assert {route.path for route in app.routes} & {"/ping", "/healthz"} == set()
    app = create_strands_app(strands_agent(echo_model()), "/agent", health_path="/healthz")
    assert "/healthz" in {route.path for route in app.routes}


# ----------------------------------------------------------------------------------------- Accept


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "",
        "text/event-stream",
        "*/*",
        "text/*",
        "TEXT/Event-Stream; charset=utf-8",
        "application/json, text/event-stream;q=0.5",
        "application/json;q=1, */*;q=0.1",
        "text/*;q=0, text/event-stream",
        "text/event-stream;q=oops",
    ],
)
def test_acceptable_accept_headers_get_sse(echo_server: LiveServer, accept: str | None) -> None:
    headers = {"Content-Type": "application/json"}
    if accept is not None:
        headers["Accept"] = accept
    request = httpx.Request("POST", echo_server.url + "/", json=run_input(), headers=headers)
    assert ("accept" in request.headers) is (accept is not None)  # Client.send adds no default Accept
    with httpx.Client() as client:
        response = client.send(request)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    assert types(parse_sse(response.content)[0])[-1] == "RUN_FINISHED"


@pytest.mark.parametrize(
    "accept",
    [
        "application/json",
        "text/html, application/xml;q=0.9",
        "text/event-stream;q=0",
        "text/event-stream;q=0, application/vnd.ag-ui.event+proto;q=0, */*",
        "text/*;q=0",
        "nonsense",
    ],
)
def test_unproducible_accept_is_406_naming_what_we_produce(echo_server: LiveServer, accept: str) -> None:
    response = post_sse(echo_server.url + "/", run_input(), {"Accept": accept, "Content-Type": "application/json"})
    assert response.status_code == 406
    assert response.headers["content-type"] == "application/json"
    assert "text/event-stream, application/vnd.ag-ui.event+proto" in response.json()["detail"]


def test_repeated_accept_headers_form_one_list(echo_server: LiveServer) -> None:
    headers = httpx.Headers([("Content-Type", "application/json"), ("Accept", "application/json"),
                             ("Accept", "text/event-stream;q=0.2")])
    with httpx.Client() as client:
        response = client.post(echo_server.url + "/", json=run_input(), headers=headers)
    assert response.status_code == 200


def test_accepts_follows_rfc_9110() -> None:
    assert accepts(None) and accepts("  ")
    assert accepts("application/json;q=0.9, text/event-stream;q=0.001")
    assert not accepts("text/event-stream;q=0.000, text/*;q=1")  # most specific range wins
    assert accepts("text/event-stream;level=1;q=0.3")
    assert not accepts("application/*, image/png")
    assert accepts("text/plain", "text/plain") and not accepts("text/plain")


# ----------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_non_json_content_type_is_415(echo_server: LiveServer, content_type: str | None) -> None:
    headers = {"Accept": "text/event-stream"}
    if content_type:
        headers["Content-Type"] = content_type
    response = httpx.post(echo_server.url + "/", content=json.dumps(run_input()), headers=headers)
    assert response.status_code == 415
    assert "application/json" in response.json()["detail"]


def test_json_subtypes_are_json(echo_server: LiveServer) -> None:
    headers = {"Accept": "text/event-stream", "Content-Type": "application/vnd.example+json; charset=utf-8"}
    response = httpx.post(echo_server.url + "/", content=json.dumps(run_input()), headers=headers)
    assert response.status_code == 200


def test_malformed_json_is_422(echo_server: LiveServer) -> None:
    response = httpx.post(echo_server.url + "/", content=b'{"threadId": ', headers=SSE_HEADERS)
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "json_invalid"


@pytest.mark.parametrize(
    ("mutate", "loc"),
    [
        (lambda body: body.pop("threadId"), ["body", "threadId"]),
        (lambda body: body.update(messages="not a list"), ["body", "messages"]),
        (lambda body: body["messages"][0].update(role="robot"), ["body", "messages", 0]),
    ],
)
def test_invalid_run_input_is_422_naming_the_field(
    echo_server: LiveServer, mutate: Callable[[dict[str, Any]], Any], loc: list[Any]
) -> None:
    body = run_input()
    mutate(body)
    response = post_sse(echo_server.url + "/", body)
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/json"
    assert any(error["loc"][: len(loc)] == loc for error in response.json()["detail"]), response.json()


def test_empty_body_is_422(echo_server: LiveServer) -> None:
    response = httpx.post(echo_server.url + "/", content=b"", headers=SSE_HEADERS)
    assert response.status_code == 422


def test_body_within_limit_runs(echo_server: LiveServer) -> None:
    body = run_input("x" * 3000)
    assert len(json.dumps(body)) < 4096
    assert post_sse(echo_server.url + "/", body).status_code == 200


def test_declared_oversized_body_is_413_before_it_is_sent(echo_server: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", echo_server.port), timeout=5) as conn:
        conn.sendall(
            b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Accept: text/event-stream\r\nContent-Length: 100000000\r\n\r\n"
        )
        reply = conn.recv(65536)  # not one body byte was sent
    assert reply.startswith(b"HTTP/1.1 413 "), reply


def test_oversized_body_is_413(echo_server: LiveServer) -> None:
    response = post_sse(echo_server.url + "/", run_input("x" * 5000))
    assert response.status_code == 413


def test_oversized_chunked_body_is_413(echo_server: LiveServer) -> None:
    payload = json.dumps(run_input("x" * 10_000)).encode()
    chunks = (payload[i : i + 1000] for i in range(0, len(payload), 1000))  # no Content-Length: chunked
    response = httpx.post(echo_server.url + "/", content=chunks, headers=SSE_HEADERS)
    assert response.status_code == 413


def test_chunked_body_within_limit_runs(echo_server: LiveServer) -> None:
    payload = json.dumps(run_input("chunked")).encode()
    chunks = (payload[i : i + 50] for i in range(0, len(payload), 50))
    response = httpx.post(echo_server.url + "/", content=chunks, headers=SSE_HEADERS)
    assert response.status_code == 200
    assert text_of(parse_sse(response.content)[0]) == "echo chunked"


def test_settings_are_checked() -> None:
    agent = strands_agent(echo_model())
    with pytest.raises(ValueError, match="keepalive_seconds"):
        create_strands_app(agent, keepalive_seconds=0)
    with pytest.raises(ValueError, match="max_body_bytes"):
        create_strands_app(agent, max_body_bytes=-1)


# ----------------------------------------------------------------------------------------- auth, routes


def test_dependencies_authenticate_before_anything_runs() -> None:
    calls: list[str] = []

    def verify(authorization: str | None = Header(default=None)) -> None:
        if authorization != "Bearer good":
            raise HTTPException(status_code=401, detail="bad token")

    def model_script(messages: list[dict[str, Any]]) -> list[Text]:
        calls.append(last_user_text(messages))
        return [Text("ok")]

    app = create_strands_app(strands_agent(ScriptedModel(model_script)), dependencies=[Depends(verify)])
    with LiveServer(app) as server:
        denied = post_sse(server.url + "/", run_input("nope"))
        not_acceptable = post_sse(server.url + "/", run_input(), {"Accept": "application/json"})
        allowed = post_sse(server.url + "/", run_input("yes"), {**SSE_HEADERS, "Authorization": "Bearer good"})
        health = httpx.get(server.url + "/ping")
    assert denied.status_code == 401 and denied.json() == {"detail": "bad token"}
    assert not_acceptable.status_code == 401  # authentication is checked first
    assert allowed.status_code == 200
    assert health.status_code == 200  # the health route is not behind the agent's dependencies
    assert calls == ["yes"]


def test_several_endpoints_on_one_app() -> None:
    app = FastAPI()
    add_strands_fastapi_endpoint(app, strands_agent(echo_model()), "/a", name="agent_a")
    add_strands_fastapi_endpoint(app, strands_agent(ScriptedModel(lambda m: [Text("bee")])), "/b")
    assert app.url_path_for("agent_a") == "/a"
    with LiveServer(app) as server:
        a = post_sse(server.url + "/a", run_input("A"))
        b = post_sse(server.url + "/b", run_input("B"))
    assert text_of(parse_sse(a.content)[0]) == "echo A"
    assert text_of(parse_sse(b.content)[0]) == "bee"
    operation = app.openapi()["paths"]["/a"]["post"]
    assert {"200", "406", "413", "415", "422"} <= set(operation["responses"])
    assert operation["requestBody"]["required"] is True


# ----------------------------------------------------------------------------------------- CORS


def test_no_cors_middleware_by_default() -> None:
    app = create_strands_app(strands_agent(echo_model()))
    assert not any(m.cls is CORSMiddleware for m in app.user_middleware)


def test_cors_allows_exactly_the_listed_origins() -> None:
    app = create_strands_app(strands_agent(echo_model()), cors_origins=["http://localhost:3000"])
    [cors] = [m for m in app.user_middleware if m.cls is CORSMiddleware]
    assert cors.kwargs["allow_origins"] == ["http://localhost:3000"]
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    with LiveServer(app) as server:
        ok = httpx.options(server.url + "/", headers={"Origin": "http://localhost:3000", **preflight})
        evil = httpx.options(server.url + "/", headers={"Origin": "http://evil.example", **preflight})
        run = post_sse(server.url + "/", run_input(), {**SSE_HEADERS, "Origin": "http://localhost:3000"})
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert evil.status_code == 400 and "access-control-allow-origin" not in evil.headers
    assert run.headers["access-control-allow-origin"] == "http://localhost:3000"


def test_cors_wildcard_is_refused() -> None:
    with pytest.raises(ValueError, match="wildcard"):
        create_strands_app(strands_agent(echo_model()), cors_origins=["*"])


# ----------------------------------------------------------------------------------------- keep-alive


@tool
async def slow_lookup(city: str) -> str:
    """Look a city up, slowly."""
    await asyncio.sleep(0.35)
    return f"{city}: sunny"


def test_keepalive_comments_are_sent_during_a_long_tool_call() -> None:
    script = [[ToolUse("slow_lookup", {"city": "Paris"})], [Text("It is sunny.")]]
    agent = strands_agent(ScriptedModel(script), tools=[slow_lookup])
    with LiveServer(create_strands_app(agent, keepalive_seconds=0.05)) as server:
        response = post_sse(server.url + "/", run_input("weather?"))
    raw = response.content
    events, comments = parse_sse(raw)
    assert set(comments) == {"ping"}
    # The pings fill the silence between the tool call and its result (0.35 s / 0.05 s: about 6).
    frames = [f.decode() for f in raw.split(b"\n\n")]
    call_end = next(i for i, f in enumerate(frames) if '"TOOL_CALL_END"' in f)
    result = next(i for i, f in enumerate(frames) if '"TOOL_CALL_RESULT"' in f)
    assert frames[call_end + 1 : result].count(": ping") >= 3
    assert types(events)[-1] == "RUN_FINISHED" and text_of(events) == "It is sunny."
    assert fastapi.routing._PING_INTERVAL == 15.0  # the process-wide default is untouched
    assert_valid_sse(raw, fail_on_run_error=True)  # both oracles ignore the comments


def test_a_proto_stream_sends_no_keepalive_bytes_during_a_long_tool_call() -> None:
    script = [[ToolUse("slow_lookup", {"city": "Paris"})], [Text("It is sunny.")]]
    agent = strands_agent(ScriptedModel(script), tools=[slow_lookup])
    with LiveServer(create_strands_app(agent, keepalive_seconds=0.05)) as server:
        response = post_sse(server.url + "/", run_input("weather?"), {**SSE_HEADERS, "Accept": PROTO_MEDIA_TYPE})
    events = decode_frames(response.content)  # a single stray byte would break the framing
    assert types(events)[-1] == "RUN_FINISHED" and text_of(events) == "It is sunny."
    assert b"ping" not in response.content


def test_keepalive_is_per_endpoint() -> None:
    script = [[ToolUse("slow_lookup", {"city": "Oslo"})], [Text("Done.")]]
    app = FastAPI()
    add_strands_fastapi_endpoint(app, strands_agent(ScriptedModel(script), tools=[slow_lookup]), "/fast",
                                 keepalive_seconds=0.05)
    add_strands_fastapi_endpoint(app, strands_agent(ScriptedModel(script), tools=[slow_lookup]), "/calm")
    with LiveServer(app) as server:
        with ThreadPoolExecutor(2) as pool:
            fast, calm = pool.map(lambda p: post_sse(server.url + p, run_input()), ["/fast", "/calm"])
    assert parse_sse(fast.content)[1] and not parse_sse(calm.content)[1]


# ----------------------------------------------------------------------------------------- mid-stream errors


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


# Closing the run mid-way closes Strands' suspended stream_async (aclose); Strands then leaves inner
# generators to the garbage collector and OpenTelemetry logs "Failed to detach context". The core's
# own halt after a frontend tool call does the same; the behaviour is Strands', not the endpoint's.
@tolerates("opentelemetry.context")
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


class _ScriptedRun(StrandsAgent):
    """A StrandsAgent whose run is a fixed list of events (then optionally an exception)."""

    def __init__(self, events: list[BaseEvent], error: Exception | None = None) -> None:
        super().__init__(Agent(model=ScriptedModel([]), callback_handler=None))
        self.events, self.error, self.closed = events, error, threading.Event()

    async def run(self, input_data: RunAgentInput, **_: Any) -> AsyncIterator[BaseEvent]:  # type: ignore[override]
        try:
            for event in self.events:
                yield event
            if self.error is not None:
                raise self.error
        finally:
            self.closed.set()


@pytest.mark.parametrize("accept", FRAMINGS)
def test_encoding_error_closes_the_run_generator(accept: str) -> None:
    started = RunStartedEvent(thread_id="thread-1", run_id="run-1")
    bad = CustomEvent(name="bad", value=object())  # no JSON for this
    agent = _ScriptedRun([started, bad, CustomEvent(name="after", value=1)])
    with LiveServer(create_strands_app(agent)) as server:
        response = post_sse(server.url + "/", run_input(), {**SSE_HEADERS, "Accept": accept})
    events = events_in(response.content, accept)
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1]["code"] == "ENCODING_ERROR" and "CUSTOM" in events[1]["message"]
    assert agent.closed.is_set()


@tolerates("strands_agui.server.streaming")  # the endpoint logs the crash with its traceback
@pytest.mark.parametrize("accept", FRAMINGS)
def test_a_crashing_run_ends_with_run_error_not_a_traceback(accept: str) -> None:
    agent = _ScriptedRun([RunStartedEvent(thread_id="thread-1", run_id="run-1")], RuntimeError("boom"))
    with LiveServer(create_strands_app(agent)) as server:
        response = post_sse(server.url + "/", run_input(), {**SSE_HEADERS, "Accept": accept})
    events = events_in(response.content, accept)
    assert response.status_code == 200
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1] == {"type": "RUN_ERROR", "message": "RuntimeError: boom", "code": "ADAPTER_ERROR"}
    assert b"Traceback" not in response.content
    assert agent.closed.is_set()


def test_a_run_without_terminal_event_still_ends_with_one() -> None:
    agent = _ScriptedRun([RunStartedEvent(thread_id="thread-1", run_id="run-1")])
    with LiveServer(create_strands_app(agent)) as server:
        events, _ = parse_sse(post_sse(server.url + "/", run_input()).content)
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1]["code"] == "ADAPTER_ERROR" and "without RUN_FINISHED" in events[1]["message"]


# ----------------------------------------------------------------------------------------- disconnects


class _ClosingModel(ScriptedModel):
    """A slow ScriptedModel that records when its stream is finalized."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.closed = threading.Event()

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        try:
            async for chunk in super().stream(*args, **kwargs):
                yield chunk
        finally:
            self.closed.set()


def _open_stream(port: int, body: dict[str, Any], accept: str = "text/event-stream") -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    payload = json.dumps(body).encode()
    conn.sendall(
        b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nAccept: %s\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (accept.encode(), len(payload), payload)
    )
    return conn


def _read_until(conn: socket.socket, marker: bytes, count: int = 1) -> bytes:
    received = b""
    while received.count(marker) < count:
        chunk = conn.recv(65536)
        assert chunk, f"connection closed early: {received!r}"
        received += chunk
    return received


def _wait(predicate: Callable[[], bool], seconds: float = 2.0) -> float:
    """Seconds until ``predicate`` held; fails after ``seconds``."""
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < seconds, "timed out"
        time.sleep(0.01)
    return time.monotonic() - start


def _assert_cancelled_cleanly(server: LiveServer, conn: socket.socket, closed: list[threading.Event],
                              tasks_before: set[Any], threads_before: set[threading.Thread]) -> None:
    """Close ``conn``; within 2 s every ``closed`` event is set and the server's loop has no task and
    the process no thread that it did not have before the request."""
    assert any(t.get_name() == "strands-agui-watch" for t in server.tasks())  # the run is live
    conn.close()
    for event in closed:
        assert event.wait(2), "the run was not cancelled"
    _wait(lambda: server.tasks() == tasks_before)
    _wait(lambda: set(threading.enumerate()) <= threads_before)


@pytest.mark.parametrize(("accept", "third_delta"), [("text/event-stream", b"TEXT_MESSAGE_CONTENT"),
                                                      (PROTO_MEDIA_TYPE, b"word2")])
def test_client_disconnect_cancels_a_streaming_run(accept: str, third_delta: bytes) -> None:
    after_invocation = threading.Event()
    model = _ClosingModel([[Text(" ".join(f"word{i}" for i in range(400)))]], delay=0.05)
    template = Agent(model=model, callback_handler=None)
    template.hooks.add_callback(AfterInvocationEvent, lambda event: after_invocation.set())
    with LiveServer(create_strands_app(StrandsAgent(template))) as server:
        tasks_before, threads_before = server.tasks(), set(threading.enumerate())
        conn = _open_stream(server.port, run_input(), accept)
        head = _read_until(conn, third_delta, 3 if third_delta == b"TEXT_MESSAGE_CONTENT" else 1)
        assert head.startswith(b"HTTP/1.1 200 ")
        started = time.monotonic()
        _assert_cancelled_cleanly(server, conn, [model.closed, after_invocation], tasks_before, threads_before)
        assert time.monotonic() - started < 2


@pytest.mark.parametrize(("accept", "call_sent"), [("text/event-stream", b"TOOL_CALL_END"),
                                                   (PROTO_MEDIA_TYPE, b"very_slow")])
def test_client_disconnect_cancels_a_silent_tool_call(accept: str, call_sent: bytes) -> None:
    tool_cancelled = threading.Event()

    @tool
    async def very_slow(city: str) -> str:
        """Takes far longer than the test."""
        try:
            await asyncio.sleep(30)
        finally:
            tool_cancelled.set()
        return city

    agent = strands_agent(ScriptedModel([[ToolUse("very_slow", {"city": "Lima"})], [Text("late")]]),
                          tools=[very_slow])
    with LiveServer(create_strands_app(agent)) as server:  # default keep-alive: no frame while we wait
        tasks_before, threads_before = server.tasks(), set(threading.enumerate())
        conn = _open_stream(server.port, run_input(), accept)
        _read_until(conn, call_sent)
        time.sleep(0.1)  # the tool is running and the stream is silent
        _assert_cancelled_cleanly(server, conn, [tool_cancelled], tasks_before, threads_before)


# ----------------------------------------------------------------------------------------- concurrency


class InFlight:
    """Counts Strands invocations running at once (hooks on the template, copied to every run)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = self.total = 0

    def before(self, event: BeforeInvocationEvent) -> None:
        with self.lock:
            self.now += 1
            self.total += 1
            self.peak = max(self.peak, self.now)

    def after(self, event: AfterInvocationEvent) -> None:
        with self.lock:
            self.now -= 1


def _echo_server_with_counter(delay: float, words: int) -> tuple[FastAPI, InFlight]:
    counter = InFlight()
    template = Agent(model=echo_model(delay=delay, words=words), callback_handler=None)
    template.hooks.add_callback(BeforeInvocationEvent, counter.before)
    template.hooks.add_callback(AfterInvocationEvent, counter.after)
    return create_strands_app(StrandsAgent(template)), counter


def _run_all(url: str, bodies: list[dict[str, Any]]) -> list[bytes]:
    """POST every body at once, each from its own thread on its own connection; the raw SSE bodies."""
    limits = httpx.Limits(max_connections=len(bodies), max_keepalive_connections=0)
    with httpx.Client(timeout=30, limits=limits) as client, ThreadPoolExecutor(len(bodies)) as pool:
        responses = list(pool.map(lambda body: client.post(url, json=body, headers=SSE_HEADERS), bodies))
    assert [r.status_code for r in responses] == [200] * len(bodies)
    return [r.content for r in responses]


def test_100_concurrent_runs_have_no_cross_talk() -> None:
    n, words = 100, 5
    app, counter = _echo_server_with_counter(delay=0.01, words=words)
    bodies = [run_input(f"message-{i}", thread_id=f"thread-{i}", run_id=f"run-{i}") for i in range(n)]
    with LiveServer(app) as server:
        raws = _run_all(server.url + "/", bodies)
    filler = "".join(f" w{j}" for j in range(words))
    streams = [parse_sse(raw)[0] for raw in raws]
    for i, events in enumerate(streams):
        assert events[0] == {"type": "RUN_STARTED", "threadId": f"thread-{i}", "runId": f"run-{i}"}
        assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "success"}
        assert (events[-1]["threadId"], events[-1]["runId"]) == (f"thread-{i}", f"run-{i}")
        assert text_of(events) == f"echo message-{i}{filler}"
        others = {e.get("threadId") for e in events} | {e.get("runId") for e in events}
        assert others <= {None, f"thread-{i}", f"run-{i}"}
    assert counter.total == n and counter.now == 0
    assert counter.peak >= n // 2, f"runs did not overlap (peak {counter.peak})"
    assert_valid_streams([streams[0], streams[-1]], fail_on_run_error=True)


def test_two_concurrent_runs_on_the_same_thread() -> None:
    app, counter = _echo_server_with_counter(delay=0.02, words=10)
    bodies = [run_input(f"take-{k}", thread_id="shared", run_id=f"run-{k}") for k in (1, 2)]
    with LiveServer(app) as server:
        raws = _run_all(server.url + "/", bodies)
    streams = [parse_sse(raw)[0] for raw in raws]
    for k, events in zip((1, 2), streams, strict=True):
        assert events[0]["runId"] == events[-1]["runId"] == f"run-{k}"
        assert {e.get("threadId") for e in events} == {None, "shared"}
        assert types(events)[-1] == "RUN_FINISHED"
        assert text_of(events) == f"echo take-{k}" + "".join(f" w{j}" for j in range(10))
    assert counter.peak == 2
    assert_valid_streams(streams, fail_on_run_error=True)
