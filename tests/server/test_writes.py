"""What the endpoint writes, and when. RUN_STARTED is on the wire before the run's Strands agent is built (and
a build that fails still ends the run with a documented RUN_ERROR). Write coalescing
(``server/transport/streaming.py``):
frames that come faster than one per ``coalesce_seconds`` share one ``send``, RUN_STARTED and the terminal
frame never wait, and a frame waiting when the run falls silent is written by the watcher. Served by uvicorn;
the writes are the ``http.response.body`` messages the endpoint hands to the server, recorded by a
pass-through ASGI wrapper. No assertion on time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.types import Message, Receive, Scope, Send
from strands import tool

from strands_agui.errors import ERROR_CODES
from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_sse
from tests.support.agents import echo_model, strands_agent
from tests.support.live import LiveServer
from tests.support.wire import parse_sse, post_sse, run_input, text_of, types


class Writes:
    """A pass-through ASGI wrapper recording the body of every ``http.response.body`` message."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.bodies: list[bytes] = []
        self.seen: dict[bytes, asyncio.Event] = {}  # marker -> set once a written body holds it

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def recording(message: Message) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                self.bodies.append(message["body"])
                for marker, event in self.seen.items():
                    if marker in message["body"]:
                        event.set()
            await send(message)

        await self.app(scope, receive, recording)

    def frames(self) -> list[list[str]]:
        """The event types of each write."""
        return [types(parse_sse(body)[0]) for body in self.bodies]


def _served(coalesce: float, agent: Any, **settings: Any) -> tuple[Writes, bytes]:
    writes = Writes(create_strands_app(agent, coalesce_seconds=coalesce, **settings))
    with LiveServer(writes) as server:  # type: ignore[arg-type]
        response = post_sse(server.url + "/", run_input("hello"))
    assert response.status_code == 200
    assert b"".join(writes.bodies) == response.content
    return writes, response.content


@pytest.mark.slow
def test_frames_faster_than_the_window_share_one_write() -> None:
    writes, raw = _served(30.0, strands_agent(echo_model(words=20)))
    # RUN_STARTED goes out alone at once; everything after it came within the window, so it waited for the
    # terminal frame, which is never held back.
    assert writes.frames()[0] == ["RUN_STARTED"]
    assert len(writes.bodies) == 2 and writes.frames()[1][-1] == "RUN_FINISHED"
    events, _ = parse_sse(raw)
    assert text_of(events) == "echo hello" + "".join(f" w{i}" for i in range(20))
    assert_valid_sse(raw, fail_on_run_error=True)


def test_without_coalescing_every_frame_is_its_own_write() -> None:
    writes, raw = _served(0.0, strands_agent(echo_model(words=5)))
    assert all(len(frame) == 1 for frame in writes.frames())
    assert [t for frame in writes.frames() for t in frame] == types(parse_sse(raw)[0])


def test_a_frame_waiting_when_the_run_falls_silent_is_written_by_the_watcher() -> None:
    """The tool blocks until the client could see its call announced: only the watcher can write the
    TOOL_CALL_END frame that waits in the buffer meanwhile (the run's own task is inside the tool)."""
    announced = asyncio.Event()

    @tool
    async def wait_until_announced(city: str) -> str:
        """Answer once the call was written to the client."""
        try:
            await asyncio.wait_for(announced.wait(), 20)
        except TimeoutError:
            return "never announced"
        return f"{city}: announced"

    script = [[ToolUse("wait_until_announced", {"city": "Oslo"})], [Text("Done.")]]
    agent = strands_agent(ScriptedModel(script), tools=[wait_until_announced])
    app = FastAPI()
    add_strands_fastapi_endpoint(app, agent, "/", coalesce_seconds=0.05)
    writes = Writes(app)
    writes.seen[b'"TOOL_CALL_END"'] = announced
    with LiveServer(writes) as server:  # type: ignore[arg-type]
        response = post_sse(server.url + "/", run_input("weather?"), timeout=30)
    events, _ = parse_sse(response.content)
    result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
    assert result["content"] == '"Oslo: announced"'  # a text result, as upstream encodes it
    assert types(events)[-1] == "RUN_FINISHED" and text_of(events) == "Done."
    assert_valid_sse(response.content, fail_on_run_error=True)


@pytest.mark.parametrize("coalesce", [-0.01, float("inf"), float("nan")])
def test_coalesce_seconds_is_checked(coalesce: float) -> None:
    with pytest.raises(ValueError, match="coalesce_seconds"):
        create_strands_app(strands_agent(echo_model()), coalesce_seconds=coalesce)


def test_run_started_is_written_before_the_agent_is_built_and_a_failed_build_ends_the_run() -> None:
    written_before_build: list[list[list[str]]] = []
    writes: Writes

    def factory(_input: Any) -> Any:
        written_before_build.append(writes.frames())
        raise RuntimeError("no agent today")

    writes = Writes(create_strands_app(StrandsAgent(factory)))
    with LiveServer(writes) as server:  # type: ignore[arg-type]
        response = post_sse(server.url + "/", run_input("hello"))
    assert written_before_build == [[["RUN_STARTED"]]]
    events, _ = parse_sse(response.content)
    assert types(events) == ["RUN_STARTED", "STATE_SNAPSHOT", "RUN_ERROR"]
    assert events[-1]["code"] in ERROR_CODES and "no agent today" in events[-1]["message"]
    assert_valid_sse(response.content)
