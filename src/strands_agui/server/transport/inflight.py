"""The runs this process serves now, counted by every transport (SSE, protobuf, WebSocket) in one place:
:meth:`RunDriver.drive <strands_agui.server.transport.driver.RunDriver.drive>` enters :data:`IN_FLIGHT` when it
starts driving a run and leaves it on every way out (the end, a client gone, a cancellation, a failure).

Readers: a health answer that says whether the process is busy (AgentCore's ``/ping`` ``HealthyBusy``) and
admission control (how many runs are already in flight, ``server/request/admission.py``). A run admitted by
admission control is counted from its admission, before its body is read (a :class:`Held` entry, handed to the
driver, which leaves it at the run's end instead of entering again): a burst of requests admitted in one loop turn
is counted before any of them is driven, so the limit holds for bursts too. ``changed_at`` is the wall-clock time
the count last went from 0 to 1 or from 1 to 0, so a health answer can stamp when its status changed, not when it
was asked.
"""

from __future__ import annotations

import time

__all__ = ["IN_FLIGHT", "Held", "InFlight"]


class InFlight:
    """A count of runs being driven, and when it last moved between idle (0) and busy (1 or more)."""

    __slots__ = ("changed_at", "runs")

    def __init__(self) -> None:
        self.runs = 0
        self.changed_at = time.time()

    def enter(self) -> None:
        if self.runs == 0:
            self.changed_at = time.time()
        self.runs += 1

    def leave(self) -> None:
        self.runs -= 1
        if self.runs == 0:
            self.changed_at = time.time()


class Held:
    """One run's place in a count, taken when it is made and given back once, by whoever leaves it first (the
    driver at the run's end, or the route when the request is refused before its run is driven)."""

    __slots__ = ("_count",)

    def __init__(self, count: InFlight | None = None) -> None:
        self._count: InFlight | None = count if count is not None else IN_FLIGHT
        self._count.enter()

    def leave(self) -> None:
        count, self._count = self._count, None
        if count is not None:
            count.leave()

    def __del__(self) -> None:  # a response never sent (its request dropped on the way): never counted forever
        self.leave()


IN_FLIGHT = InFlight()
"""This process's (each uvicorn worker has its own)."""
