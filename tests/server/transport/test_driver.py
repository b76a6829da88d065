"""The served run's phase table (``server/transport/driver.py``): every phase is reachable, ``stopped`` and ``ended``
are final, and a move the table lacks raises instead of passing silently. The behaviour each phase stands for
(where a stop lands, how the run unwinds) is proven over HTTP by test_load.py, test_writes.py and
test_endpoint.py."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import pytest
from transitions import MachineError

from strands_agui.server.transport.driver import MOVES, Phase, RunDriver
from strands_agui.server.transport.pacing import Pacer
from tests.support.paths import REPO


def test_every_phase_is_reachable_from_started_and_only_stopped_and_ended_are_final() -> None:
    seen, frontier = {Phase.STARTED}, [Phase.STARTED]
    while frontier:
        for nxt in MOVES[frontier.pop()] - seen:
            seen.add(nxt)
            frontier.append(nxt)
    assert seen == set(Phase)
    assert {phase for phase, moves in MOVES.items() if not moves} == {Phase.STOPPED, Phase.ENDED}
    assert all(Phase.STOPPED in MOVES[phase] for phase in (Phase.WAITING, Phase.FORWARDING, Phase.WRITING))


async def _nothing():  # type: ignore[no-untyped-def]
    return
    yield


def test_the_driver_holds_a_machine_of_its_table_and_no_guard_of_its_own() -> None:
    """One machine mechanism: the driver's phase is a ``core.machine.Machine`` of ``DRIVER`` (as the run's is of
    ``RUN``, ``tests/core/test_machine.py``); no patched ``trigger``, no guard method on the model."""
    from strands_agui.core.machine import GUARDS, Machine
    from strands_agui.server.transport.driver import DRIVER

    driver = RunDriver(_nothing(), lambda event: b"", object(), keepalive=1, coalesce=0,  # type: ignore[arg-type]
                       keepalive_frame=None)
    assert isinstance(driver.machine, Machine) and driver.machine.table is DRIVER
    assert not hasattr(RunDriver, "trigger")
    assert not any(hasattr(RunDriver, guard) for guard in GUARDS)


def test_a_move_the_table_lacks_raises() -> None:
    driver = RunDriver(_nothing(), lambda event: b"", object(), keepalive=1, coalesce=0,  # type: ignore[arg-type]
                       keepalive_frame=None)
    driver.fire("wait")
    driver.fire("forward")
    with pytest.raises(MachineError, match="no move 'forward' from 'forwarding'"):
        driver.fire("forward")
    driver.fire("end")
    assert driver.phase is Phase.ENDED
    with pytest.raises(MachineError, match="no move 'wait' from 'ended'"):
        driver.fire("wait")


async def test_a_stop_while_the_run_task_is_busy_stands_and_the_run_unwinds() -> None:
    """The watcher may stop the run while the run's own task is between awaits (a write that completed just as
    the reader left): the stop stands, the task's own moves change nothing, and the run ends as a stopped one
    (seen at 150 runs/s in the open-loop bench as ``no move from stopped to forwarding``)."""
    from ag_ui.core import RunStartedEvent, TextMessageStartEvent

    closed: list[bool] = []

    async def events():  # type: ignore[no-untyped-def]
        try:
            yield RunStartedEvent(thread_id="t", run_id="r")
            yield TextMessageStartEvent(message_id="m")
        finally:
            closed.append(True)

    class Sink:
        driver: RunDriver

        async def write(self, body: bytes) -> None:
            host = asyncio.current_task()
            assert host is not None
            self.driver._stop(host, "the client disconnected")  # the stop lands while this task runs

        async def gone(self) -> None:
            await asyncio.Event().wait()

        async def end(self) -> None:
            raise AssertionError("a stopped run's response is abandoned, never ended")

    sink = Sink()
    sink.driver = RunDriver(events(), lambda event: b"frame", sink, keepalive=5, coalesce=0,  # type: ignore[arg-type]
                            keepalive_frame=None)
    assert await sink.driver.drive() is False
    assert sink.driver.phase is Phase.STOPPED and sink.driver.reason == "the client disconnected"
    assert closed == [True]


def _asgi_post(app, body: bytes):  # type: ignore[no-untyped-def]
    """One POST through the ASGI app, in this loop (no server): the body chunks it sent."""
    sent: list[bytes] = []
    delivered = False

    async def receive():  # type: ignore[no-untyped-def]
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client stays

    async def send(message):  # type: ignore[no-untyped-def]
        if message["type"] == "http.response.body":
            sent.append(message["body"])

    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/", "raw_path": b"/", "query_string": b"",
             "root_path": "", "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 2),
             "headers": [(b"content-type", b"application/json"), (b"accept", b"text/event-stream")]}
    return app(scope, receive, send), sent


@pytest.mark.parametrize("resumable", [False, True])
async def test_a_finished_run_ends_every_generator_inside_it_itself(resumable: bool) -> None:
    """After the terminal frame the driver reads the run to its end, so no async generator of the run (the
    adapter's loop, the translator's, a resumable run's store) is left suspended for asyncio's finalizer, which
    closes each in a task of its own through the loop's self-pipe."""
    import gc

    from strands import Agent

    from strands_agui import StrandsAgent
    from strands_agui.server.app import create_strands_app
    from strands_agui.tooling.scripted import ScriptedModel, Text
    from tests.support.scenarios import run_input

    app = create_strands_app(StrandsAgent(Agent(model=ScriptedModel([[Text("one two three")]]),
                                                callback_handler=None)), resumable=resumable)
    finalized: list[str] = []
    hooks = sys.get_asyncgen_hooks()  # the loop's: its finalizer closes a collected, unfinished generator
    sys.set_asyncgen_hooks(hooks.firstiter, lambda agen: (finalized.append(agen.__qualname__),
                                                          hooks.finalizer(agen)))  # type: ignore[misc]
    try:
        call, sent = _asgi_post(app, run_input("hi").model_dump_json(by_alias=True).encode())
        await call
        gc.collect()
        await asyncio.sleep(0)
    finally:
        sys.set_asyncgen_hooks(*hooks)
    assert b"RUN_FINISHED" in b"".join(sent)
    assert finalized == []


def test_the_driver_table_is_drawn_and_the_committed_diagrams_match_a_fresh_render() -> None:
    """The served run's phases are a ``core.machine.Table`` like the run's: `make diagrams` draws them too."""

    from strands_agui.server.transport.driver import DRIVER
    from strands_agui.tooling import diagrams

    root = REPO / "diagrams"
    assert (root / "served_run.mmd").read_text() == diagrams.mermaid(DRIVER)
    assert (root / "served_run.dot").read_text() == diagrams.dot(DRIVER)
    assert all(f": {t}" in diagrams.mermaid(DRIVER) or f"| {t}" in diagrams.mermaid(DRIVER)
               for t in DRIVER.triggers())


class _Loop(Pacer):
    """A pacer whose loop's latest measurement found it busy, or not (an overloaded process's: always)."""

    def __init__(self, busy: bool) -> None:
        super().__init__()
        self._fixed = busy

    @property
    def loop_busy(self) -> bool:
        return self._fixed


@pytest.mark.parametrize("busy", [False, True])
async def test_on_a_busy_loop_a_frame_after_a_silence_waits_for_the_next(busy: bool) -> None:
    """Each event comes 30 ms after the last (the loop blocked meanwhile: another run's step), longer than the
    20 ms window. On a quiet loop that is the run's silence, so each frame is a write of its own; on a busy loop
    (``Pacer.loop_busy``) it is the loop's lag, so a frame waits for the next like any other and two go out per
    write. RUN_STARTED and the terminal frame never wait. (Past its saturation a served process wrote 35-43
    writes a run instead of 12, each frame after what looked like a silence.)"""
    from ag_ui.core import RunFinishedEvent, RunStartedEvent, TextMessageContentEvent

    async def events():  # type: ignore[no-untyped-def]
        yield RunStartedEvent(thread_id="t", run_id="r")
        for n in range(8):
            time.sleep(0.03)  # the loop is held: no timer runs meanwhile
            yield TextMessageContentEvent(message_id="m", delta=f"w{n}")
        yield RunFinishedEvent(thread_id="t", run_id="r")

    class Sink:
        def __init__(self) -> None:
            self.writes: list[list[str]] = []

        async def write(self, body: bytes) -> None:
            self.writes.append([json.loads(line[6:])["type"] for line in body.decode().split("\n\n") if line])

        async def gone(self) -> None:
            await asyncio.Event().wait()

        async def end(self) -> None:
            return None

    sink = Sink()
    driver = RunDriver(events(), lambda event: b"data: " + event.model_dump_json().encode() + b"\n\n", sink,
                       keepalive=5, coalesce=0.02, keepalive_frame=None, pace=_Loop(busy))
    assert await driver.drive() is True
    frames = [kind for write in sink.writes for kind in write]
    assert frames == ["RUN_STARTED", *["TEXT_MESSAGE_CONTENT"] * 8, "RUN_FINISHED"]
    assert sink.writes[0] == ["RUN_STARTED"]
    if not busy:
        assert len(sink.writes) == 10  # each frame after a silence at once
    else:
        assert len(sink.writes) <= 6 and all(len(write) >= 2 for write in sink.writes[1:-1])


async def test_a_driven_run_is_counted_in_flight_until_it_ends_on_every_way_out() -> None:
    """``IN_FLIGHT`` counts a run from the driver's start to its end, whether it finishes or its reader leaves;
    ``changed_at`` moves only when the count goes between 0 and 1 (what a health answer stamps)."""
    from ag_ui.core import RunStartedEvent

    from strands_agui.server.transport.inflight import IN_FLIGHT

    seen: list[int] = []
    release = asyncio.Event()

    async def events():  # type: ignore[no-untyped-def]
        seen.append(IN_FLIGHT.runs)
        yield RunStartedEvent(thread_id="t", run_id="r")
        await release.wait()

    class Sink:
        def __init__(self) -> None:
            self.left = asyncio.Event()

        async def write(self, body: bytes) -> None:
            return None

        async def gone(self) -> None:
            await self.left.wait()

        async def end(self) -> None:
            return None

    before, stamped = IN_FLIGHT.runs, IN_FLIGHT.changed_at
    sinks = [Sink(), Sink()]
    drives = [asyncio.create_task(RunDriver(events(), lambda event: b"f", sink, keepalive=5,  # type: ignore[arg-type]
                                            coalesce=0, keepalive_frame=None).drive()) for sink in sinks]
    while len(seen) < 2:
        await asyncio.sleep(0.001)
    assert IN_FLIGHT.runs == before + 2 and seen[1] == before + 2
    if before == 0:
        assert IN_FLIGHT.changed_at >= stamped
    busy_since = IN_FLIGHT.changed_at
    sinks[0].left.set()  # one reader leaves: that run is stopped and no longer counted
    assert await drives[0] is False
    assert IN_FLIGHT.runs == before + 1 and IN_FLIGHT.changed_at == busy_since
    release.set()  # the other finishes
    assert await drives[1] is True
    assert IN_FLIGHT.runs == before
