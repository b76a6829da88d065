"""Event stores of resumable runs: each run's AG-UI events, numbered 1, 2, ... as they are written.

A store keeps, per run: its events (the wire JSON and the event type), who may read it (the *principal*, None
when the endpoint authenticates nobody), whether a reader is attached, whether a cancel was requested, and
whether the worker running it is alive; per thread, its live run (``mark_thread``: the thread API's ``liveRun``,
``docs/threads.md``). Two stores:

* :class:`MemoryEvents` - one process. At most ``max_runs`` runs holding ``max_bytes`` of events in all, a run
  at most ``max_events`` events and ``max_run_bytes`` (a longer run keeps its newest: a reconnect asking for a
  dropped one gets 404, a follower that falls behind them ends RUN_LOST), each kept ``ttl`` seconds after it
  ended. A live run is never evicted: room is made by dropping ended runs (the first to end first); when the
  live ones fill the store, or a named principal has ``max_live_runs_per_principal`` live runs, a new run is
  refused (:class:`RunLimit`: 429 ``RUN_LIMIT``). The anonymous principal (no ``auth``: every caller) is bounded
  by the totals only. Defaults: 1000 runs, 256 MiB, 10 000 events and 32 MiB per run, 100 live runs per
  principal, 15 minutes. Bytes are counted as :func:`event_bytes` (the JSON text object and a record per event);
  a live run keeps its newest event whatever its size, so a store of live runs can pass ``max_bytes`` by those.
* :class:`~strands_agui.server.resumable.redis_store.RedisEvents` (``redis_events.py``) - several workers or machines
  (``--events redis://HOST:PORT/DB``). Every key of a run is ``<prefix>:run:{<h>}:<part>``, ``h`` the SHA-256 of
  the run's key (the run id scoped by its principal, ``resumable.run_key``), so no run id can name another key.
  ``:events`` is a Redis stream; each entry holds a batch of consecutive events (one ``XADD`` per batch, its id
  the number of its last event: ``7-0`` ends with event 7, so ``XREAD`` from ``n-0`` starts at the batch holding
  event n + 1), capped at ``max_events`` entries (``XADD MAXLEN ~``, so at least as many events) and expiring
  ``ttl`` seconds after its last write (``EXPIRE``); readers read it with ``XREAD`` and, when nothing is new,
  wait on their worker's one ``XREAD BLOCK`` over every stream followed there. A worker's calls share at most
  ``max_connections`` connections (50), waiting at most ``timeout`` for a free one.
  Beside it: ``:meta`` (the principal; ``lost``, the first event not stored, once the log stopped short),
  ``:alive`` (the running worker's heartbeat, a key that expires ``ALIVE_SECONDS`` after the worker stops
  refreshing it), ``:reader`` (set by readers, expiring), ``:cancel`` (a cancel request, polled by the running
  worker once per heartbeat), and per thread ``<prefix>:thread:{<h>}`` (``h`` of the thread's key: its latest
  run and that run's entry, expiring after ``ttl``; it names a live run only while that run's ``:alive`` does).
  ``<prefix>:live`` and ``<prefix>:live:<principal hash>`` are sorted sets of the
  live runs (scored by their heartbeat's expiry): at most ``max_live_runs`` (10 000) and
  ``max_live_runs_per_principal`` (100) live runs, past them :class:`RunLimit`. A run's writes go out from one
  task per run (one script call for what waited ``BATCH_SECONDS``, or the transport's coalescing window while
  the run's reader is attached, ``RunLog.written_every``), and before each write of the driver (so a client
  never holds an id the store lacks), never from inside the run. The worker running a run keeps it
  in its own registry too: a cancel reaching it works, and its id stays taken, whatever Redis lost; its
  heartbeat writes the run's keys back after a Redis restart (new runs wait ``SETTLE_SECONDS`` after Redis lost
  every key, so those come back first).

A store that cannot be reached raises :class:`StoreUnavailable` (the endpoint answers 503 before any run
starts); see ``docs/reliability.md`` for what a store outage mid-run loses.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from ag_ui.core import EventType

TERMINAL_TYPES = frozenset({EventType.RUN_FINISHED.value, EventType.RUN_ERROR.value})
ALIVE_SECONDS = 5.0  # a run whose worker has not refreshed its heartbeat for this long is lost
HEARTBEAT_SECONDS = 1.0  # how often a running worker refreshes its heartbeat and looks for a cancel request
BATCH_SECONDS = 0.02  # the longest an event waits for the writer when no transport writes (the reader left)
READ_BLOCK_SECONDS = 1.0  # the longest a reader waits for new events before it looks at the run's worker
DEFAULT_MAX_RUNS = 1000
DEFAULT_MAX_EVENTS = 10_000
DEFAULT_TTL_SECONDS = 900.0
DEFAULT_MAX_BYTES = 256 * 1024 * 1024  # memory: every kept event of every run
DEFAULT_MAX_RUN_BYTES = 32 * 1024 * 1024  # memory: one run's kept events (a longer run keeps its newest)
DEFAULT_MAX_LIVE_RUNS_PER_PRINCIPAL = 100  # live runs of one named principal (both stores)
DEFAULT_MAX_LIVE_RUNS = 10_000  # Redis: live runs of every worker on the same Redis (memory: ``max_runs``)
DEFAULT_MAX_CONNECTIONS = 50  # Redis: a worker's connections for its calls (redis-py's BlockingConnectionPool's)
EVENT_OVERHEAD_BYTES = 64  # what the byte bounds count for an event beside its JSON text (its record, its slot)


class StoreUnavailable(Exception):
    """The event store cannot be reached."""


class RunExists(Exception):
    """A run with this id was already started."""


class RunLimit(Exception):
    """A new run is refused: the store is full of live runs (which are never evicted), or its principal has as
    many live runs as it may. ``limit`` names the bound (``live_runs_per_principal``, ``runs``: stored runs,
    ``live_runs``: Redis' live runs of every worker, ``bytes``), ``maximum`` its value."""

    def __init__(self, limit: str, maximum: int) -> None:
        super().__init__(f"{limit} limit reached ({maximum})")
        self.limit, self.maximum = limit, maximum


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
    """The numbers of the oldest event still kept (1 unless the log was capped) and of the newest, whether the
    newest is the run's terminal event, and whether the log stopped short (``lost``: Redis failed or lost the
    run while it ran; the log never reaches its terminal event, a reader gets RUN_LOST at its end)."""

    first: int
    last: int
    ended: bool
    lost: bool = False


class RunLog(Protocol):
    """The running worker's side of one run's log."""

    def append(self, data: str, kind: str) -> int:
        """Store one event (never awaits); returns its number."""

    def reader_attached(self, within: float) -> bool:
        """Whether a reader followed the run in the last ``within`` seconds (as last seen by the heartbeat)."""

    async def flush(self) -> None:
        """Store what was appended; the driver awaits it before a frame reaches the reader, so a client never
        holds an event id the store has not. A store outage is logged, never raised (the run goes on)."""

    def written_every(self, window: float | None) -> None:
        """The run's transport now flushes the log before each write and writes what came within ``window``
        seconds (its coalescing window); None: it no longer does (the reader left). A store that batches on its
        own may let an event wait that long for the transport's flush, never longer."""

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

    async def mark_thread(self, thread: str, run_id: str, entry: str) -> None:
        """Name the live run ``run_id`` as the one on ``thread`` (a thread's key, scoped by its principal as a
        run's is), with ``entry`` (JSON: what the thread API shows of it); a later run on the thread replaces it."""

    async def thread_run(self, thread: str) -> str | None:
        """The entry ``mark_thread`` gave the run on ``thread``, while that run is live (None: none is)."""


# ----------------------------------------------------------------------------- in memory


@dataclass
class _Run:
    principal: str | None
    on_cancel: Callable[[], None]
    events: list[Stored] = field(default_factory=list)
    dropped: int = 0  # events removed from the front (the caps)
    bytes: int = 0  # what its kept events hold (``event_bytes``)
    ended_at: float | None = None
    running: bool = True
    read_at: float = float("-inf")
    readers: int = 0
    thread: str | None = None  # the thread it was marked as the live run of (``mark_thread``)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def last(self) -> int:
        return self.dropped + len(self.events)


def event_bytes(data: str) -> int:
    """What one stored event holds in memory, as the byte bounds count it: its JSON text object and its record."""
    return sys.getsizeof(data) + EVENT_OVERHEAD_BYTES


class MemoryEvents:
    """The events of one process's resumable runs, bounded (see the module docstring): ``max_runs`` runs and
    ``max_bytes`` of events in all, ``max_events`` events and ``max_run_bytes`` per run, ``max_live_runs_per_principal``
    live runs per named principal; ended runs kept ``ttl`` seconds at most."""

    def __init__(self, *, max_runs: int = DEFAULT_MAX_RUNS, max_events: int = DEFAULT_MAX_EVENTS,
                 ttl: float = DEFAULT_TTL_SECONDS, max_bytes: int = DEFAULT_MAX_BYTES,
                 max_run_bytes: int = DEFAULT_MAX_RUN_BYTES,
                 max_live_runs_per_principal: int = DEFAULT_MAX_LIVE_RUNS_PER_PRINCIPAL) -> None:
        for name, value in (("max_runs", max_runs), ("max_events", max_events), ("max_bytes", max_bytes),
                            ("max_run_bytes", max_run_bytes),
                            ("max_live_runs_per_principal", max_live_runs_per_principal)):
            if not (isinstance(value, int) and value > 0):
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        self.max_runs, self.max_events, self.ttl = max_runs, max_events, ttl
        self.max_bytes, self.max_run_bytes = max_bytes, max_run_bytes
        self.max_live_runs_per_principal = max_live_runs_per_principal
        self.runs: dict[str, _Run] = {}
        self.ended: OrderedDict[str, _Run] = OrderedDict()  # ended runs, the first to end first: what may go
        self.live: Counter[str | None] = Counter()  # live runs per principal
        self.threads: dict[str, tuple[str, str]] = {}  # thread -> its live run and that run's entry (live runs only)
        self.bytes = 0  # what every kept event holds (``event_bytes``)

    def _get(self, run_id: str) -> _Run | None:
        self._expire()
        return self.runs.get(run_id)

    def _expire(self) -> None:
        now = time.monotonic()
        while self.ended:
            run_id, run = next(iter(self.ended.items()))
            if run.ended_at is not None and now - run.ended_at <= self.ttl:
                return
            self._evict(run_id)

    def _evict(self, run_id: str) -> None:
        """Drop an ended run (never a live one)."""
        run = self.ended.pop(run_id)
        del self.runs[run_id]
        self.bytes -= run.bytes

    def _ended(self, run_id: str, run: _Run) -> None:
        self.live[run.principal] -= 1
        if self.live[run.principal] <= 0:
            del self.live[run.principal]
        self.ended[run_id] = run

    def _make_room(self) -> None:
        """Evict ended runs, the first to end first, until both bounds leave room for one more run."""
        while self.ended and (len(self.runs) >= self.max_runs or self.bytes >= self.max_bytes):
            self._evict(next(iter(self.ended)))

    async def open(self, run_id: str, principal: str | None, on_cancel: Callable[[], None]) -> RunLog:
        if self._get(run_id) is not None:
            raise RunExists(run_id)
        if principal is not None and self.live[principal] >= self.max_live_runs_per_principal:
            raise RunLimit("live_runs_per_principal", self.max_live_runs_per_principal)
        self._make_room()
        if len(self.runs) >= self.max_runs:
            raise RunLimit("runs", self.max_runs)
        if self.bytes >= self.max_bytes:
            raise RunLimit("bytes", self.max_bytes)
        run = self.runs[run_id] = _Run(principal, on_cancel)
        self.live[principal] += 1
        return _MemoryLog(self, run_id, run)

    async def known(self, run_id: str, principal: str | None) -> bool:
        run = self._get(run_id)
        return run is not None and run.principal == principal

    async def bounds(self, run_id: str) -> Bounds:
        run = self._get(run_id)
        if run is None or not run.events:
            return Bounds(1, 0, False)
        return Bounds(run.dropped + 1, run.last, run.events[-1].terminal)

    async def mark_thread(self, thread: str, run_id: str, entry: str) -> None:
        run = self.runs.get(run_id)
        if run is not None and run.running:
            run.thread = thread
            self.threads[thread] = (run_id, entry)

    async def thread_run(self, thread: str) -> str | None:
        found = self.threads.get(thread)
        if found is None:
            return None
        run = self.runs.get(found[0])
        return found[1] if run is not None and run.running else None

    async def follow(self, run_id: str, after: int) -> AsyncIterator[Stored]:
        run = self._get(run_id)
        if run is None:
            return
        run.readers += 1
        try:
            while True:
                run.read_at = time.monotonic()
                if after < run.dropped:
                    return  # the events after ``after`` were dropped while it waited: the caller reports it
                if after < run.last:
                    event = run.events[after - run.dropped]
                    after = event.seq
                    yield event  # the run may append (and drop) while this reader writes: look again after it
                    if event.terminal:
                        return
                    continue
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
    def __init__(self, store: MemoryEvents, run_id: str, run: _Run) -> None:
        self.store, self.run_id, self.run = store, run_id, run

    def append(self, data: str, kind: str) -> int:
        store, run = self.store, self.run
        seq = run.last + 1
        run.events.append(Stored(seq, data, kind))
        size = event_bytes(data)
        run.bytes += size
        store.bytes += size
        # the run's own caps (events, then bytes), always keeping its newest event
        drop = max(0, len(run.events) - store.max_events)
        freed = sum(event_bytes(e.data) for e in run.events[:drop])
        while run.bytes - freed > store.max_run_bytes and drop < len(run.events) - 1:
            freed += event_bytes(run.events[drop].data)
            drop += 1
        self._drop(drop, freed)
        if store.bytes > store.max_bytes:  # the store's: ended runs go first, then this run's oldest events
            store._expire()
            while store.ended and store.bytes > store.max_bytes:
                store._evict(next(iter(store.ended)))
            drop = freed = 0
            while store.bytes - freed > store.max_bytes and drop < len(run.events) - 1:
                freed += event_bytes(run.events[drop].data)
                drop += 1
            self._drop(drop, freed)
        run.changed.set()
        return seq

    def _drop(self, count: int, freed: int) -> None:
        """Drop the run's ``count`` oldest events, which held ``freed`` bytes."""
        if count:
            del self.run.events[:count]
            self.run.dropped += count
            self.run.bytes -= freed
            self.store.bytes -= freed

    def reader_attached(self, within: float) -> bool:
        return self.run.readers > 0 or time.monotonic() - self.run.read_at < within

    async def flush(self) -> None:
        return None

    def written_every(self, window: float | None) -> None:
        return None  # every event is stored as it is appended

    async def close(self) -> None:
        run = self.run
        if not run.running:
            return
        run.running = False
        run.ended_at = time.monotonic()
        self.store._ended(self.run_id, run)
        if run.thread is not None and self.store.threads.get(run.thread, ("",))[0] == self.run_id:
            del self.store.threads[run.thread]  # the thread has no live run now (a later one replaced none)
        run.changed.set()
