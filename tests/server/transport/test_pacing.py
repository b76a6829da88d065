"""The served runs' fairness (server/transport/pacing.py): when a run gives the event loop a turn.

The pacer reads ``time.monotonic``; these tests give it a clock of their own that moves only when a test says
time passed, so a machine running other jobs (a preempted loop takes milliseconds to come back) cannot make a
quiet loop read as busy."""

from __future__ import annotations

import asyncio

import pytest

from strands_agui.server.transport import pacing
from strands_agui.server.transport.pacing import BUSY, Pacer


class Clock:
    """``time`` as the pacer sees it: ``monotonic`` stands still until ``sleep`` moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(autouse=True)
def time(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(pacing, "time", clock)
    return clock


async def _hold_then_turn(pace: Pacer, seconds: float, clock: Clock) -> None:
    """One slice that holds the loop ``seconds`` before the run's next await: how long the loop takes to come
    back to the run is what the pacer measures."""
    assert pace() is None  # the slice begins: no turn due
    clock.sleep(seconds)  # the rest of the loop's turn (other requests' work, or this run's own)
    await asyncio.sleep(0)  # the run awaits (a model's chunk): the loop gets to the pacer's callback


async def test_on_a_quiet_loop_a_run_gives_a_turn_once_per_slice_not_per_event(time: Clock) -> None:
    pace = Pacer(slice_seconds=0.05)
    await _hold_then_turn(pace, 0, time)
    assert pace() is None  # a new slice
    assert [pace() for _ in range(50)] == [None] * 50  # well inside the slice
    time.sleep(0.06)  # the run holds the loop past its slice
    turn = pace()
    assert turn is not None  # the slice is used up: a turn
    await turn


async def test_on_a_busy_loop_a_run_gives_a_turn_every_other_event(time: Clock) -> None:
    pace = Pacer(slice_seconds=1.0, busy_seconds=0.002)
    await _hold_then_turn(pace, 0.005, time)  # the loop took 5 ms to come back: busy
    assert pace() is None  # a new slice
    turn = pace()
    assert turn is not None
    await turn


async def test_a_new_run_on_a_busy_loop_is_busy_from_its_first_slice(time: Clock) -> None:
    """RUN_STARTED's step gives the loop a turn before the run's agent is built, on a loop another run found busy
    (before, a new run's first slice was quiet: it held the loop through RUN_STARTED and the agent's build)."""
    loop = asyncio.get_running_loop()
    await _hold_then_turn(Pacer(busy_seconds=0.002), 0.005, time)
    assert BUSY[loop].busy is True
    new = Pacer(busy_seconds=0.002)
    assert new() is None  # after RUN_STARTED: its slice begins
    turn = new()  # after the next event, before the agent is built
    assert turn is not None
    await turn


async def test_a_new_run_on_a_quiet_loop_holds_its_first_slice(time: Clock) -> None:
    loop = asyncio.get_running_loop()
    await _hold_then_turn(Pacer(busy_seconds=0.002), 0, time)
    assert BUSY[loop].busy is False
    new = Pacer(busy_seconds=0.002)
    assert new() is None
    assert new() is None  # a quiet loop: the slice goes on


def test_a_pacer_made_outside_a_running_loop_starts_quiet() -> None:
    pace = Pacer()
    assert pace._busy is False


async def test_on_a_loop_that_sheds_load_a_busy_run_gives_a_turn_once_per_slice(time: Clock) -> None:
    """Past saturation each turn a run gives costs the CPU the runs admitted need (one process at 4x what it holds
    served 133-144 runs/s with a turn per slice, 122-126 with one every other event): admission control marks the
    loop shedding, and its busy runs pace as on a quiet loop; once it stops shedding, every other event again."""
    loop = asyncio.get_running_loop()
    pace = Pacer(slice_seconds=0.05, busy_seconds=0.002)
    await _hold_then_turn(pace, 0.005, time)  # busy
    pacing.loop_state().shedding = True
    try:
        assert pace() is None  # a new slice
        assert [pace() for _ in range(20)] == [None] * 20  # busy, but shedding: no turn inside the slice
        time.sleep(0.06)
        turn = pace()
        assert turn is not None  # the slice is used up: a turn, as on a quiet loop
        await turn
        BUSY[loop].shedding = False
        assert pace() is None
        turn = pace()
        assert turn is not None  # busy and no longer shedding: every other event
        await turn
    finally:
        BUSY[loop].shedding = False


@pytest.mark.parametrize("fails", [False, True])
async def test_a_served_run_on_a_shedding_busy_loop_ends_whole_for_the_official_client(fails: bool) -> None:
    """Past saturation (the loop busy, admission control shedding) a served run still reaches the client whole:
    its text, then RUN_FINISHED; a model that fails mid-stream, RUN_ERROR with the documented ``STRANDS_ERROR``
    after the text it streamed. Both oracles read the body as the client got it."""
    import httpx
    from fastapi import FastAPI
    from strands import Agent

    from strands_agui import StrandsAgent, add_strands_fastapi_endpoint
    from strands_agui.tooling.scripted import Fail, ScriptedModel, Text
    from tests.oracles import assert_valid_sse

    words = [Text(" ".join(f"word{i}" for i in range(40)))]
    steps = [*words, Fail(RuntimeError("the provider fell over"))] if fails else words
    app = FastAPI()
    add_strands_fastapi_endpoint(app, StrandsAgent(Agent(model=ScriptedModel([steps]), callback_handler=None)), "/")
    state = pacing.loop_state()
    state.busy = state.shedding = True
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            body = {"threadId": "t-shed", "runId": "r-shed", "state": {}, "tools": [], "context": [],
                    "forwardedProps": {}, "messages": [{"id": "u-1", "role": "user", "content": "Say it"}]}
            response = await client.post("/", json=body, headers={"Accept": "text/event-stream"})
        assert state.shedding is True  # nothing turned it off mid-run: the run was paced per slice throughout
    finally:
        state.busy = state.shedding = False
    assert response.status_code == 200
    report = assert_valid_sse(response.content, content_type=response.headers["content-type"])
    said = [m["content"] for m in report["messages"] if m["role"] == "assistant"]
    assert said and said[-1].startswith("word0 word1") and said[-1].endswith("word39")
    if fails:
        assert report["outcome"] == "run_error" and report["run_error"]["code"] == "STRANDS_ERROR", report
    else:
        assert report["outcome"] == "success" and report["run_error"] is None, report
