"""The runs this process serves now, counted by every transport (SSE, protobuf, WebSocket) in one place:
:meth:`RunDriver.drive <strands_agui.server.transport.driver.RunDriver.drive>` enters :data:`IN_FLIGHT` when it
starts driving a run and leaves it on every way out (the end, a client gone, a cancellation, a failure).

Readers: a health answer that says whether the process is busy (AgentCore's ``/ping`` ``HealthyBusy``) and
admission control (how many runs are already in flight). ``changed_at`` is the wall-clock time the count last went
from 0 to 1 or from 1 to 0, so a health answer can stamp when its status changed, not when it was asked.
"""

from __future__ import annotations

import time

__all__ = ["IN_FLIGHT", "InFlight"]


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


IN_FLIGHT = InFlight()
"""This process's (each uvicorn worker has its own)."""
