"""Event stores of resumable runs: each run's AG-UI events, numbered 1, 2, ... as they are written.

A store keeps, per run: its events (the wire JSON and the event type), who may read it (the *principal*, None
when the endpoint authenticates nobody), whether a reader is attached, whether a cancel was requested, and
whether the worker running it is alive. Two stores:

* :class:`MemoryEvents` - one process. At most ``max_runs`` runs (the oldest is dropped first) of at most
  ``max_events`` events each (a longer run keeps its newest: a reconnect asking for a dropped one gets 404),
  each kept ``ttl`` seconds after it ended. Defaults: 1000 runs, 10 000 events, 15 minutes.
* :class:`~strands_agui.server.redis_events.RedisEvents` (``redis_events.py``) - several workers or machines
  (``--events redis://HOST:PORT/DB``). A run is a Redis
  stream ``<prefix>:<key>`` (the key: the run id scoped by its principal, ``resumable.run_key``); each entry
  holds a batch of consecutive events (one ``XADD`` per batch, its id the number of its last event: ``7-0``
  ends with event 7, so ``XREAD`` from ``n-0`` starts at the batch holding event n + 1), capped at
  ``max_events`` entries (``XADD MAXLEN ~``, so at least as many events) and expiring ``ttl`` seconds after its
  last write (``EXPIRE``); readers follow it with ``XREAD BLOCK``.
  Beside it: ``:meta`` (the principal), ``:alive`` (the running worker's heartbeat, a key that expires
  ``ALIVE_SECONDS`` after the worker stops refreshing it), ``:reader`` (set by readers, expiring),
  ``:cancel`` (a cancel request, polled by the running worker once per heartbeat). A run's writes go out
  from one task per run (a batch gathered for ``BATCH_SECONDS``, one pipeline), and before each write of the
  driver (so a client never holds an id the store lacks), never from inside the run.

A store that cannot be reached raises :class:`StoreUnavailable` (the endpoint answers 503 before any run
starts); see ``docs/reliability.md`` for what a store outage mid-run loses.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from ag_ui.core import EventType

TERMINAL_TYPES = frozenset({EventType.RUN_FINISHED.value, EventType.RUN_ERROR.value})
ALIVE_SECONDS = 5.0  # a run whose worker has not refreshed its heartbeat for this long is lost
HEARTBEAT_SECONDS = 1.0  # how often a running worker refreshes its heartbeat and looks for a cancel request
BATCH_SECONDS = 0.02  # how long the writer gathers events before a pipeline (the driver's writes flush at once)
READ_BLOCK_SECONDS = 1.0  # the longest a reader waits for new events before it looks at the run's worker
DEFAULT_MAX_RUNS = 1000
DEFAULT_MAX_EVENTS = 10_000
DEFAULT_TTL_SECONDS = 900.0


class StoreUnavailable(Exception):
    """The event store cannot be reached."""


class RunExists(Exception):
    """A run with this id was already started."""


@dataclass(frozen=True)
class Stored:
    """One event of a run's log: its number, its wire JSON and its type (``EventType`` value)."""

    seq: int
    data: str
    kind: str

    @property
    def terminal(self) -> bool:
        return self.kind in TERMINAL_TYPES

    @property
    def type(self) -> EventType:
        return EventType(self.kind)


class Bounds(NamedTuple):
    """The numbers of the oldest event still kept (1 unless the log was capped) and of the newest, and
    whether the newest is the run's terminal event."""

    first: int
    last: int
    ended: bool


class RunLog(Protocol):
    """The running worker's side of one run's log."""

    def append(self, data: str, kind: str) -> int:
        """Store one event (never awaits); returns its number."""

    def reader_attached(self, within: float) -> bool:
        """Whether a reader followed the run in the last ``within`` seconds (as last seen by the heartbeat)."""

    async def flush(self) -> None:
        """Store what was appended; the driver awaits it before a frame reaches the reader, so a client never
        holds an event id the store has not. A store outage is logged, never raised (the run goes on)."""

    async def close(self) -> None:
        """Write what is pending and stop the heartbeat; the log then expires after the store's ``ttl``."""


class EventStore(Protocol):
    """Where resumable runs' events go."""

    async def open(self, run_id: str, principal: str | None, on_cancel: Callable[[], None]) -> RunLog:
        """Start a run's log (``RunExists`` when the id is taken); ``on_cancel`` is called (once, on this
        worker) when a cancel is requested from any worker."""

    async def known(self, run_id: str, principal: str | None) -> bool:
        """Whether the run exists and belongs to ``principal``."""

    def follow(self, run_id: str, after: int) -> AsyncIterator[Stored]:
        """The run's events after number ``after``, then the live ones, to its terminal event; ends with a
        RUN_ERROR ``RUN_LOST`` built by the caller when it yields none (see ``resumable.follow``)."""

    async def cancel(self, run_id: str, principal: str | None) -> str:
        """Ask the run's worker to cancel it: ``requested``, ``ended`` (nothing to cancel) or ``unknown``
        (also another principal's run)."""

    async def bounds(self, run_id: str) -> Bounds:
        """What the run's log holds now."""


# ----------------------------------------------------------------------------- in memory


@dataclass
class _Run:
    principal: str | None
    on_cancel: Callable[[], None]
    events: list[Stored] = field(default_factory=list)
    dropped: int = 0  # events removed from the front (the cap)
    ended_at: float | None = None
    running: bool = True
    read_at: float = float("-inf")
    readers: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryEvents:
    """The events of one process's resumable runs, bounded (see the module docstring)."""

    def __init__(self, *, max_runs: int = DEFAULT_MAX_RUNS, max_events: int = DEFAULT_MAX_EVENTS,
                 ttl: float = DEFAULT_TTL_SECONDS) -> None:
        self.max_runs, self.max_events, self.ttl = max_runs, max_events, ttl
        self.runs: OrderedDict[str, _Run] = OrderedDict()

    def _get(self, run_id: str) -> _Run | None:
        run = self.runs.get(run_id)
        if run is not None and run.ended_at is not None and time.monotonic() - run.ended_at > self.ttl:
            del self.runs[run_id]
            return None
        return run

    async def open(self, run_id: str, principal: str | None, on_cancel: Callable[[], None]) -> RunLog:
        if self._get(run_id) is not None:
            raise RunExists(run_id)
        while len(self.runs) >= self.max_runs:
            self.runs.popitem(last=False)
        run = self.runs[run_id] = _Run(principal, on_cancel)
        return _MemoryLog(run, self.max_events)

    async def known(self, run_id: str, principal: str | None) -> bool:
        run = self._get(run_id)
        return run is not None and run.principal == principal

    async def bounds(self, run_id: str) -> Bounds:
        run = self._get(run_id)
        if run is None or not run.events:
            return Bounds(1, 0, False)
        return Bounds(run.dropped + 1, run.dropped + len(run.events), run.events[-1].terminal)

    async def follow(self, run_id: str, after: int) -> AsyncIterator[Stored]:
        run = self._get(run_id)
        if run is None:
            return
        run.readers += 1
        try:
            while True:
                run.read_at = time.monotonic()
                for event in run.events[max(0, after - run.dropped):]:
                    after = event.seq
                    yield event
                    if event.terminal:
                        return
                if not run.running:
                    return
                run.changed.clear()
                await run.changed.wait()
        finally:
            run.readers -= 1
            run.read_at = time.monotonic()

    async def cancel(self, run_id: str, principal: str | None) -> str:
        if not await self.known(run_id, principal):
            return "unknown"
        run = self.runs[run_id]
        if not run.running:
            return "ended"
        run.on_cancel()
        return "requested"


class _MemoryLog:
    def __init__(self, run: _Run, cap: int) -> None:
        self.run, self.cap = run, cap

    def append(self, data: str, kind: str) -> int:
        run = self.run
        seq = run.dropped + len(run.events) + 1
        run.events.append(Stored(seq, data, kind))
        if len(run.events) > self.cap:
            del run.events[0]
            run.dropped += 1
        run.changed.set()
        return seq

    def reader_attached(self, within: float) -> bool:
        return self.run.readers > 0 or time.monotonic() - self.run.read_at < within

    async def flush(self) -> None:
        return None

    async def close(self) -> None:
        self.run.running = False
        self.run.ended_at = time.monotonic()
        self.run.changed.set()
