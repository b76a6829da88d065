"""AgentCore's ``GET /ping``: ``Healthy``, or ``HealthyBusy`` while this process holds work that a reclaimed session
would lose, with ``time_of_last_update`` the time that status began.

What "busy" means is one function, :func:`process_status`: runs in flight (every transport counts them in
``transport/inflight.IN_FLIGHT``) or background tasks held past their run for the thread's next one
(``runtime/building/background_watch.DETACHED``: their results live only in this process). AgentCore keeps a
``HealthyBusy`` session alive, and may reclaim an idle ``Healthy`` one after its idle timeout.

``time_of_last_update`` changes only when the status changes: AgentCore reads a value that moves on every ping as
activity, and would then keep an idle session until its maximum lifetime. A change of the in-flight count is
stamped with the time the count moved (``IN_FLIGHT.changed_at``); one the held tasks made, with the time this process
first saw it (they carry no clock of their own).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from ...runtime.building.background_watch import DETACHED
from ..transport.inflight import IN_FLIGHT

__all__ = ["HEALTHY", "HEALTHY_BUSY", "ProcessStatus", "ping_body", "process_status"]

HEALTHY = "Healthy"
HEALTHY_BUSY = "HealthyBusy"


@dataclass(frozen=True)
class ProcessStatus:
    """Whether this process is busy, why, and since when (wall-clock seconds) that has been so."""

    busy: bool
    since: float
    runs: int  # runs in flight
    held: int  # threads whose background tasks outlived their run, held here

    @property
    def status(self) -> str:
        return HEALTHY_BUSY if self.busy else HEALTHY


class _Stamp:
    """The last status answered and when it began: moved only when the status changes."""

    def __init__(self) -> None:
        self.busy = False
        self.held = False  # tasks were held at the last look
        self.since = IN_FLIGHT.changed_at
        self.lock = threading.Lock()

    def moved(self, runs: int, held: int) -> float:
        """When the status that ``runs`` and ``held`` make began: the in-flight count's own clock when the count
        explains the change (busy: runs are in flight; idle: no task was held at the last look), else now."""
        busy = runs > 0 or held > 0
        with self.lock:
            if busy != self.busy:
                by_runs = runs > 0 if busy else not self.held
                changed = IN_FLIGHT.changed_at
                self.busy, self.since = busy, changed if by_runs and changed > self.since else time.time()
            self.held = held > 0
            return self.since


_STAMP = _Stamp()


def process_status() -> ProcessStatus:
    """Is this process busy, and since when: runs in flight or held background tasks. The one place that says so
    (AgentCore's ``/ping`` reads it; a reason of another kind, e.g. admission control's saturation, is one more
    term of ``busy`` here)."""
    runs, held = IN_FLIGHT.runs, DETACHED.holding()
    return ProcessStatus(runs > 0 or held > 0, _STAMP.moved(runs, held), runs, held)


def ping_body() -> dict[str, str | int]:
    """``GET /ping``'s JSON: ``status`` and ``time_of_last_update`` (whole seconds since the epoch, as the
    AgentCore SDK writes it)."""
    status = process_status()
    return {"status": status.status, "time_of_last_update": int(status.since)}
