"""The served run's phase table (``server/driver.py``): every phase is reachable, ``stopped`` and ``ended``
are final, and a move the table lacks raises instead of passing silently. The behaviour each phase stands for
(where a stop lands, how the run unwinds) is proven over HTTP by test_load.py, test_writes.py and
test_endpoint.py."""

from __future__ import annotations

import asyncio

import pytest

from strands_agui.server.driver import MOVES, Phase, RunDriver


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


def test_a_move_the_table_lacks_raises() -> None:
    driver = RunDriver(_nothing(), lambda event: b"", object(), keepalive=1, coalesce=0,  # type: ignore[arg-type]
                       keepalive_frame=None)
    driver.move(Phase.WAITING)
    driver.move(Phase.FORWARDING)
    with pytest.raises(RuntimeError, match="no move from forwarding to started"):
        driver.move(Phase.STARTED)
    driver.move(Phase.ENDED)
    with pytest.raises(RuntimeError, match="no move from ended to waiting"):
        driver.move(Phase.WAITING)


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
