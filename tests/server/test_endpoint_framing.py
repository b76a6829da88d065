"""The run route's stream on the wire: LF-framed SSE of one valid run, and keep-alive comments during a silent
tool call (none in the protobuf framing; per endpoint).

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); helpers in ``tests/support/``.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import fastapi.routing
import httpx
import pytest
from fastapi import FastAPI
from strands import tool

from strands_agui.server.app import create_strands_app
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE, decode_frames
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_sse
from tests.support.agents import strands_agent
from tests.support.live import LiveServer
from tests.support.wire import SSE_HEADERS, parse_sse, post_sse, run_input, text_of, types

pytestmark = pytest.mark.usefixtures("no_server_errors")


def test_stream_is_lf_framed_sse_of_one_valid_run(echo_server: LiveServer) -> None:
    with httpx.stream("POST", echo_server.url + "/", json=run_input("hello"), headers=SSE_HEADERS) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        raw = b"".join(response.iter_raw())
    events, _ = parse_sse(raw)
    started = dict(events[0])
    # a tracer provider another test of this process installed adds the run's trace ids (docs/observability.md)
    assert set(started.pop("metadata", {})) <= {"traceId", "spanId"}
    assert started == {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"}
    assert events[-1]["type"] == "RUN_FINISHED"
    assert text_of(events) == "echo hello"
    assert all(None not in e.values() for e in events)  # exclude_none on the wire
    report = assert_valid_sse(raw, fail_on_run_error=True)  # ag-ui-validate + the official client
    assert report["ok"] is True


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
