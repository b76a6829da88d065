"""Fairness between the runs one event loop serves: how often a served run gives the loop back.

The endpoint makes one :class:`Pacer` per request and hands it to the run (``StrandsAgent.run(pace=)``, called
after each Strands event that produced no AG-UI event) and to the driver (``server/transport/driver.py``, called after
each AG-UI event); see ``streaming``'s Fairness invariant and ``docs/benchmarks.md``.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable

__all__ = ["BUSY", "BUSY_SECONDS", "SLICE_SECONDS", "LoopState", "Pacer", "loop_state", "yield_to_loop"]

SLICE_SECONDS = 0.002  # the longest a run holds a quiet event loop before it gives other requests a turn
BUSY_SECONDS = 0.002  # a loop that takes this long to come back to a run is busy: its runs yield every other event
# (unless it sheds load: ``LoopState.shedding``)


class LoopState:
    """What the pacers of one event loop share: whether the latest measurement of any of them found it busy, and
    whether admission control is shedding load on it (``server/request/admission.py`` sets it each window)."""

    __slots__ = ("busy", "shedding")

    def __init__(self) -> None:
        self.busy = False
        self.shedding = False


BUSY: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopState] = weakref.WeakKeyDictionary()
"""Event loop -> its pacers' shared state (looked up once per request, not per slice)."""


def loop_state(loop: asyncio.AbstractEventLoop | None = None) -> LoopState:
    """``loop``'s (the running loop's by default; outside a running loop, a state of its own)."""
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # made outside a running loop (a driver built ahead): a state of its own
            return LoopState()
    state = BUSY.get(loop)
    if state is None:
        state = BUSY[loop] = LoopState()
    return state


def yield_to_loop() -> Awaitable[None]:
    """One turn of the event loop: what the stream and its run give other requests between events."""
    return asyncio.sleep(0)


class Pacer:
    """Fairness by time slice, tighter on a busy loop: called after each event of a run, it returns a loop turn
    to await, or None (nothing to await).

    * **A quiet loop**: a turn once the run has held the loop for ``slice_seconds`` since it last waited. A run
      at a model's pace never pays a turn of its own; one that never waits (a scripted model, a replay) yields
      once per slice instead of once per event.
    * **A busy loop** (the loop took ``busy_seconds`` or more to come back to the run after it last waited: other
      requests are queued): a turn after every second event, so each loop turn carries little of each run's
      work and a new request's first step, which writes RUN_STARTED, waits behind less.
    * **A loop that sheds load** (admission control refused a run in its last window): per slice again, busy or
      not. Each turn a run gives costs the worker CPU (a resumption of the request's whole coroutine chain), and
      past saturation that CPU is what the runs it admitted need; a new request there waits for its admission
      or its refusal, not behind the runs' work. One process offered 4x what it holds served 133-144 runs/s
      with a turn per slice against 122-126 with one every other event, its p99 the same (``docs/benchmarks.md``).

    Both are known exactly, without a timer: when a slice begins the pacer asks the loop for a callback
    (``call_soon``), which runs only once the run's task has given the loop a turn (a model's or a tool's
    await, or the pacer's own), and measures how long the loop took to get to it. A new run starts from the
    loop's latest measurement (:data:`BUSY`): on a busy loop its first slice is busy too, so the step that writes
    RUN_STARTED gives the loop a turn before the run's agent is built, instead of holding it for both."""

    __slots__ = ("slice", "busy_seconds", "_start", "_waited", "_busy", "_loop")

    def __init__(self, slice_seconds: float = SLICE_SECONDS, busy_seconds: float = BUSY_SECONDS) -> None:
        self.slice, self.busy_seconds = slice_seconds, busy_seconds
        self._start = 0.0
        self._waited = True
        self._loop = loop_state()
        self._busy = self._loop.busy

    def _turned(self) -> None:
        self._waited = True
        self._busy = self._loop.busy = time.monotonic() - self._start >= self.busy_seconds

    @property
    def loop_busy(self) -> bool:
        """Whether the loop's latest measurement (any of its pacers') found it busy: the driver's coalescing
        then takes a gap between two frames for the loop's lag, not the run's silence."""
        return self._loop.busy

    def __call__(self) -> Awaitable[None] | None:
        now = time.monotonic()
        if self._waited:  # the loop turned since the slice began: a new slice begins now
            self._waited = False
            self._start = now
            asyncio.get_running_loop().call_soon(self._turned)
            return None
        if now - self._start >= self.slice or (self._busy and not self._loop.shedding):
            return yield_to_loop()
        return None
