"""A client that leaves cancels its run inside Strands at once, streaming or in a silent tool call, leaving no task
or thread behind.

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); helpers in ``tests/support/``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from strands import Agent, tool
from strands.hooks import AfterInvocationEvent

from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.support.agents import strands_agent
from tests.support.live import LiveServer
from tests.support.servers import open_stream, read_until, wait_until
from tests.support.wire import run_input

pytestmark = pytest.mark.usefixtures("no_server_errors")


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


def _assert_cancelled_cleanly(server: LiveServer, conn: socket.socket, closed: list[threading.Event],
                              tasks_before: set[Any], threads_before: set[threading.Thread]) -> None:
    """Close ``conn``; within 2 s every ``closed`` event is set and the server's loop has no task and
    the process no thread that it did not have before the request."""
    assert any(t.get_name() == "strands-agui-watch" for t in server.tasks())  # the run is live
    conn.close()
    for event in closed:
        assert event.wait(2), "the run was not cancelled"
    wait_until(lambda: server.tasks() == tasks_before)
    wait_until(lambda: set(threading.enumerate()) <= threads_before)


@pytest.mark.parametrize(("accept", "third_delta"), [("text/event-stream", b"TEXT_MESSAGE_CONTENT"),
                                                      (PROTO_MEDIA_TYPE, b"word2")])
def test_client_disconnect_cancels_a_streaming_run(accept: str, third_delta: bytes) -> None:
    after_invocation = threading.Event()
    model = _ClosingModel([[Text(" ".join(f"word{i}" for i in range(400)))]], delay=0.05)
    template = Agent(model=model, callback_handler=None)
    template.hooks.add_callback(AfterInvocationEvent, lambda event: after_invocation.set())
    with LiveServer(create_strands_app(StrandsAgent(template))) as server:
        tasks_before, threads_before = server.tasks(), set(threading.enumerate())
        conn = open_stream(server.port, run_input(), accept)
        head = read_until(conn, third_delta, 3 if third_delta == b"TEXT_MESSAGE_CONTENT" else 1)
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
        conn = open_stream(server.port, run_input(), accept)
        read_until(conn, call_sent)
        time.sleep(0.1)  # the tool is running and the stream is silent
        _assert_cancelled_cleanly(server, conn, [tool_cancelled], tasks_before, threads_before)


def test_client_disconnect_while_a_result_handler_awaits_ends_strands_its_own_way() -> None:
    """The client leaves while a ``custom_result_handler`` awaits between two of its events (the
    agentic_generative_ui example's progress, Stop in the console): Strands, suspended at its yield of the tool's
    result, is cancelled at its next await and unwinds its own generators in the request's task, so OpenTelemetry
    logs no "Failed to detach context" (``no_server_errors``) and the handler is cancelled with the run."""
    from ag_ui.core import StateDeltaEvent

    from strands_agui import StrandsAgentConfig, ToolBehavior, ToolResultContext

    handler_cancelled, after_invocation = threading.Event(), threading.Event()

    async def progress(context: ToolResultContext) -> AsyncIterator[StateDeltaEvent]:
        yield StateDeltaEvent(delta=[{"op": "add", "path": "/step", "value": 1}])
        try:
            await asyncio.sleep(30)
        finally:
            handler_cancelled.set()
        yield StateDeltaEvent(delta=[{"op": "add", "path": "/step", "value": 2}])

    @tool
    async def lookup(city: str) -> str:  # async: a sync tool's worker thread would outlive the run in the pool
        """Look a city up."""
        return f"{city}: sunny"

    config = StrandsAgentConfig(tool_behaviors={"lookup": ToolBehavior(custom_result_handler=progress)})
    template = Agent(model=ScriptedModel([[ToolUse("lookup", {"city": "Lima"})], [Text("late")]]),
                     tools=[lookup], callback_handler=None)
    template.hooks.add_callback(AfterInvocationEvent, lambda event: after_invocation.set())
    with LiveServer(create_strands_app(StrandsAgent(template, config=config))) as server:
        tasks_before, threads_before = server.tasks(), set(threading.enumerate())
        conn = open_stream(server.port, run_input(), "text/event-stream")
        read_until(conn, b"STATE_DELTA")
        time.sleep(0.1)  # the handler awaits; Strands is suspended at its yield of the tool's result
        _assert_cancelled_cleanly(server, conn, [handler_cancelled, after_invocation], tasks_before, threads_before)
