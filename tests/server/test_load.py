"""Load and faults over real HTTP (uvicorn on loopback): many concurrent runs, clients that leave or stop
reading, a model that never awaits, memory over many threads. No timing assertions: every bound below is a
functional one (the run *was* cancelled, the buffer *stayed* bounded, /ping *was* answered mid-run). Each test
prints its figures (``pytest -s tests/server/test_load.py``); the durations printed are measurements, never asserted."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from strands import Agent
from strands.hooks import AfterInvocationEvent

from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.oracles import assert_valid_streams
from tests.support.agents import echo_model
from tests.support.live import LiveServer
from tests.support.servers import open_stream, read_until, wait_until
from tests.support.soak import rss_growth
from tests.support.wire import FRAMINGS, SSE_HEADERS, parse_sse, run_input, text_of, without_trace


class CountingModel(ScriptedModel):
    """A ScriptedModel that counts the chunks it has yielded and records how its stream ended."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chunks = 0
        self.cancelled = threading.Event()
        self.finished = threading.Event()

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        try:
            async for chunk in super().stream(*args, **kwargs):
                self.chunks += 1
                yield chunk
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        finally:
            self.finished.set()


def _served(model: ScriptedModel, **settings: Any) -> tuple[StrandsAgent, threading.Event]:
    ended = threading.Event()
    template = Agent(model=model, callback_handler=None)
    template.hooks.add_callback(AfterInvocationEvent, lambda event: ended.set())
    return StrandsAgent(template), ended


@pytest.mark.slow
def test_200_concurrent_runs_on_distinct_threads_are_framed_and_apart() -> None:
    n, words = 200, 8
    # 200 runs at once from a client in this process: the server's loop lags behind the client's own work and
    # admission control would rightly shed some; here every run must be framed (admission: test_admission.py)
    app = create_strands_app(StrandsAgent(Agent(model=echo_model(delay=0.005, words=words), callback_handler=None)),
                             admission=None)
    bodies = [run_input(f"message-{i}", thread_id=f"load-{i}", run_id=f"run-{i}") for i in range(n)]

    async def post_all(url: str) -> list[bytes]:
        limits = httpx.Limits(max_connections=n, max_keepalive_connections=0)
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:
            responses = await asyncio.gather(*(client.post(url, json=b, headers=SSE_HEADERS) for b in bodies))
        assert [r.status_code for r in responses] == [200] * n
        return [r.content for r in responses]

    with LiveServer(app) as server:
        raws = asyncio.run(post_all(server.url + "/"))
    filler = "".join(f" w{j}" for j in range(words))
    streams = [parse_sse(raw)[0] for raw in raws]  # asserts the framing of every body
    message_ids: set[str] = set()
    for i, events in enumerate(streams):
        assert without_trace(events[0]) == {"type": "RUN_STARTED", "threadId": f"load-{i}", "runId": f"run-{i}"}
        last = events[-1]
        assert (last["type"], last["threadId"], last["runId"]) == ("RUN_FINISHED", f"load-{i}", f"run-{i}")
        assert text_of(events) == f"echo message-{i}{filler}"
        ids = {e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START"}
        assert len(ids) == 1 and not ids & message_ids, "message ids are shared between runs"
        message_ids |= ids
    assert_valid_streams([streams[0], streams[n // 2], streams[-1]], fail_on_run_error=True)
    print(f"\nload: {n} concurrent runs on distinct threads: {len(streams)} framed, {len(message_ids)} distinct "
          "message ids, 0 cross-talk")


def _big_run(pieces: int) -> CountingModel:
    """A model streaming ``pieces`` deltas of 1 KB, awaiting the loop before each (as a network model does)."""
    return CountingModel([[Text(" ".join("y" * 1000 for _ in range(pieces)))]], delay=0.0001)


@pytest.mark.parametrize("accept", FRAMINGS)
def test_disconnect_while_the_reader_is_slow_cancels_the_run_inside_strands(accept: str) -> None:
    """The client stops reading, then leaves: the run is cancelled where Strands awaits (its model sees
    CancelledError), never closed from outside, and the request leaves no task behind."""
    pieces = 3000
    model = _big_run(pieces)
    agent, ended = _served(model)
    with LiveServer(create_strands_app(agent), send_buffer=16384) as server:
        tasks_before = server.tasks()
        conn = open_stream(server.port, run_input(), accept, receive_buffer=4096)
        read_until(conn, b"yyyy")  # the first delta
        wait_until(lambda: _stalled(model), seconds=30)  # the server is blocked writing to us
        closed = time.monotonic()
        conn.close()
        assert ended.wait(10) and model.cancelled.is_set(), "the Strands run was not cancelled"
        took = time.monotonic() - closed
        wait_until(lambda: server.tasks() == tasks_before, seconds=10)
    assert model.chunks < pieces // 4
    print(f"\nload ({accept}): a client leaving mid-run: the Strands run cancelled {took * 1000:.0f} ms after the "
          f"close, after {model.chunks} of {pieces} chunks; no task left")


@pytest.mark.parametrize("accept", FRAMINGS)
def test_a_reader_that_stops_reading_holds_a_bounded_buffer_then_the_run_is_cancelled(accept: str) -> None:
    pieces = 3000  # 3 MB if the run were read to the end
    model = _big_run(pieces)
    agent, ended = _served(model)
    app = create_strands_app(agent, keepalive_seconds=0.1)  # stall bound: 0.2 s
    with LiveServer(app, send_buffer=16384) as server:
        tasks_before = server.tasks()
        conn = open_stream(server.port, run_input(), accept, receive_buffer=4096)
        read_until(conn, b"yyyy")  # the first delta
        assert ended.wait(20), "a stalled reader did not get its run cancelled"
        assert model.cancelled.is_set()
        wait_until(lambda: server.tasks() == tasks_before, seconds=10)
        conn.close()
    # what the model produced = what the socket buffers took (about 100 KB), not the run's 3 MB
    assert model.chunks < pieces // 4, model.chunks
    print(f"\nload ({accept}): a reader that stops reading: the run cancelled after {model.chunks} of {pieces} "
          "1 KB chunks")


@pytest.mark.slow
def test_a_model_that_never_awaits_cannot_starve_other_requests() -> None:
    model = CountingModel([[Text(" ".join(f"w{i}" for i in range(200_000)))]])  # no await between chunks
    agent, ended = _served(model)
    with LiveServer(create_strands_app(agent)) as server:
        conn = open_stream(server.port, run_input())
        conn.settimeout(30)  # the 200,000-word answer's first chunk, on a loaded machine
        read_until(conn, b"TEXT_MESSAGE_CONTENT")
        asked = time.monotonic()
        ping = httpx.get(server.url + "/ping", timeout=30)
        took, at = time.monotonic() - asked, model.chunks
        assert ping.json() == {"status": "ok"}
        assert not model.finished.is_set(), "/ping was only answered after the run"
        conn.close()
        assert ended.wait(10)
    assert model.chunks < 200_000
    print(f"\nload: /ping answered in {took * 1000:.0f} ms beside a model that never awaits (at chunk {at} of 200000)")


@pytest.mark.slow
def test_rss_stays_flat_over_many_runs_on_new_threads() -> None:
    """The fast profile of ``make soak`` (10,000 runs): RSS after warm-up grows by less than 8 MB."""
    growth, runs = rss_growth(runs=300, warmup=100)
    assert runs == 300
    assert growth < 8 * 1024 * 1024, f"RSS grew {growth / 2**20:.1f} MB over {runs} runs"
    print(f"\nload: RSS growth over {runs} runs on new threads after 100 warm-up runs: {growth / 2**20:+.1f} MB")


# ----------------------------------------------------------------------------------------- helpers


def _stalled(model: CountingModel) -> bool:
    """True once the model's chunk count stops moving (the run waits on a full socket)."""
    before = model.chunks
    threading.Event().wait(0.3)
    return model.chunks == before


def test_pace_runs_between_strands_events_and_a_cancellation_there_lands_inside_strands() -> None:
    """The endpoint paces a run (``pace``: one loop turn after each Strands event that emitted nothing). A
    cancellation that arrives while the run is pacing is delivered at Strands' next await, so Strands unwinds
    its own generators: the model sees CancelledError, and nothing is closed from outside."""
    from ag_ui.core import RunAgentInput

    model = CountingModel([[Text(" ".join(f"w{i}" for i in range(50)))]], delay=0.0001)
    agent, ended = _served(model)
    input_data = RunAgentInput.model_validate(run_input())
    paces: list[int] = []
    seen: list[str] = []

    async def pace() -> None:
        paces.append(model.chunks)
        if len(paces) == 6:  # mid-stream: cancel the run's task while it is pacing
            asyncio.current_task().cancel()  # type: ignore[union-attr]
        await asyncio.sleep(0)

    async def consume() -> None:
        async for event in agent.run(input_data, pace=pace):
            seen.append(event.type.value)

    async def main() -> None:
        task = asyncio.create_task(consume())
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert len(paces) == 6 and "TEXT_MESSAGE_CONTENT" in seen
    assert model.cancelled.is_set(), "the cancellation did not land inside Strands' model call"
    assert ended.is_set()  # Strands ran its own end of invocation
    assert "RUN_FINISHED" not in seen and model.chunks < 50


def test_an_unpaced_run_never_awaits_between_strands_events() -> None:
    """Without ``pace`` (a replay, a library caller, the in-process benchmark) nothing is awaited between
    Strands events beyond Strands' own awaits: pacing is the server's choice."""
    from ag_ui.core import RunAgentInput

    model = CountingModel([[Text("a b c d")]])  # no delay: the model itself never awaits
    agent, _ = _served(model)
    input_data = RunAgentInput.model_validate(run_input())
    turns = 0

    async def count_turns(stop: asyncio.Event) -> None:
        nonlocal turns
        while not stop.is_set():
            await asyncio.sleep(0)
            turns += 1

    async def main(pace: Any) -> int:
        nonlocal turns
        stop, turns = asyncio.Event(), 0
        counter = asyncio.create_task(count_turns(stop))
        await asyncio.sleep(0)
        start = turns
        async for _ in agent.run(input_data, pace=pace):
            pass
        stop.set()
        await counter
        return turns - start

    unpaced = asyncio.run(main(None))
    paced = asyncio.run(main(lambda: asyncio.sleep(0)))
    assert paced > unpaced + 5, (paced, unpaced)
