"""Event stores of resumable runs: each run's AG-UI events, numbered 1, 2, ... as they are written.

A store keeps, per run: its events (the wire JSON and the event type), who may read it (the *principal*, None
when the endpoint authenticates nobody), whether a reader is attached, whether a cancel was requested, and
whether the worker running it is alive. Two stores:

* :class:`MemoryEvents` - one process. At most ``max_runs`` runs (the oldest is dropped first) of at most
  ``max_events`` events each (a longer run keeps its newest: a reconnect asking for a dropped one gets 404),
  each kept ``ttl`` seconds after it ended. Defaults: 1000 runs, 10 000 events, 15 minutes.
* :class:`RedisEvents` - several workers or machines (``--events redis://HOST:PORT/DB``). A run is a Redis
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
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from ag_ui.core import EventType

logger = logging.getLogger(__name__)

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


# ----------------------------------------------------------------------------- Redis


class RedisEvents:
    """Resumable runs' events in Redis Streams, shared by every worker using the same ``url``."""

    def __init__(self, url: str, *, prefix: str = "strands-agui:run", max_events: int = DEFAULT_MAX_EVENTS,
                 ttl: float = DEFAULT_TTL_SECONDS, timeout: float = 2.0) -> None:
        try:
            import redis.asyncio  # noqa: F401 - checked here so a missing extra fails at startup
        except ImportError as exc:  # pragma: no cover - the redis extra
            raise RuntimeError("RedisEvents needs the redis package: pip install 'strands-agui[redis]'") from exc
        self.url, self.prefix, self.max_events, self.ttl, self.timeout = url, prefix, max_events, ttl, timeout
        self._clients: dict[int, Any] = {}  # one client per event loop (each worker has its own)

    def client(self) -> Any:
        import redis.asyncio as aioredis

        loop = id(asyncio.get_running_loop())
        if loop not in self._clients:
            self._clients[loop] = aioredis.Redis.from_url(
                self.url, socket_timeout=self.timeout, socket_connect_timeout=self.timeout, decode_responses=True)
        return self._clients[loop]

    def key(self, run_id: str, part: str = "") -> str:
        return f"{self.prefix}:{run_id}{':' + part if part else ''}"

    async def _call(self, make: Callable[[Any], Any]) -> Any:
        """One Redis command (or pipeline), its outage as :class:`StoreUnavailable`."""
        import redis.exceptions

        try:
            return await make(self.client())
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
            raise StoreUnavailable(f"the event store at {self.url} cannot be reached: {exc}") from exc

    async def open(self, run_id: str, principal: str | None, on_cancel: Callable[[], None]) -> RunLog:
        meta = self.key(run_id, "meta")
        created = await self._call(lambda r: r.hset(meta, mapping={"principal": principal or ""}))
        if not created:
            raise RunExists(run_id)
        log = _RedisLog(self, run_id, on_cancel)
        await log.beat()
        log.start()
        return log

    async def known(self, run_id: str, principal: str | None) -> bool:
        owner = await self._call(lambda r: r.hget(self.key(run_id, "meta"), "principal"))
        return owner is not None and owner == (principal or "")

    async def bounds(self, run_id: str) -> Bounds:
        def commands(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.xrange(self.key(run_id), count=1)
            pipe.xrevrange(self.key(run_id), count=1)
            return pipe.execute()

        oldest, newest = await self._call(commands)
        if not newest:
            return Bounds(1, 0, False)
        return Bounds(int(oldest[0][1]["n"]), _number(newest[0][0]), _events(newest[0][1])[-1].terminal)

    async def follow(self, run_id: str, after: int) -> AsyncIterator[Stored]:
        stream, position = self.key(run_id), {self.key(run_id): f"{after}-0"}
        block = int(READ_BLOCK_SECONDS * 1000)
        while True:
            await self._call(lambda r: r.set(self.key(run_id, "reader"), "1", px=int(ALIVE_SECONDS * 1000)))
            reply = await self._call(lambda r: r.xread(position, count=500, block=block))
            for _stream, entries in reply or ():
                for entry_id, fields in entries:
                    position[stream] = entry_id
                    for event in _events(fields):
                        if event.seq > after:
                            yield event
                        if event.terminal:
                            return
            if not reply and not await self._call(lambda r: r.exists(self.key(run_id, "alive"))):
                return  # the run's worker is gone and the log has no terminal event: the caller reports it

    async def cancel(self, run_id: str, principal: str | None) -> str:
        if not await self.known(run_id, principal):
            return "unknown"
        if not await self._call(lambda r: r.exists(self.key(run_id, "alive"))):
            return "ended"
        await self._call(lambda r: r.set(self.key(run_id, "cancel"), "1", ex=int(self.ttl)))
        return "requested"


def _number(entry_id: str) -> int:
    """The number of the last event of a stream entry (its id: ``7-0`` -> 7)."""
    return int(entry_id.split("-")[0])


def _entry(batch: list[tuple[int, str, str]]) -> dict[str, str]:
    """One stream entry for a batch of consecutive events: the first number, the types, the JSON texts one a
    line (an event's wire JSON never holds a raw line break)."""
    return {"n": str(batch[0][0]), "t": ",".join(kind for _, _, kind in batch),
            "d": "\n".join(data for _, data, _ in batch)}


def _events(fields: dict[str, str]) -> list[Stored]:
    first = int(fields["n"])
    return [Stored(first + i, data, kind)
            for i, (kind, data) in enumerate(zip(fields["t"].split(","), fields["d"].split("\n"), strict=True))]


class _RedisLog:
    """A run's writer: appends are batched by one task, which also keeps the heartbeat."""

    def __init__(self, store: RedisEvents, run_id: str, on_cancel: Callable[[], None]) -> None:
        self.store, self.run_id, self.on_cancel = store, run_id, on_cancel
        self.pending: list[tuple[int, str, str]] = []
        self.seq = 0
        self.wake = asyncio.Event()
        self.closing = False
        self.cancelled = False
        self.reader_seen = float("-inf")
        self.broken = False  # a write failed: the log stops (the live stream goes on; see docs/reliability.md)
        self.task: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._write(), name=f"strands-agui-log-{self.run_id}")

    def append(self, data: str, kind: str) -> int:
        self.seq += 1
        if not self.broken:
            self.pending.append((self.seq, data, kind))
            self.wake.set()
        return self.seq

    def reader_attached(self, within: float) -> bool:
        return time.monotonic() - self.reader_seen < within

    async def flush(self) -> None:
        try:
            await self._flush()
        except StoreUnavailable as exc:
            self._broke(exc)

    def _broke(self, exc: StoreUnavailable) -> None:
        if not self.broken:
            logger.warning("run %s: events no longer stored: %s", self.run_id, exc)
        self.broken = True
        self.pending.clear()

    async def close(self) -> None:
        self.closing = True
        self.wake.set()
        if self.task is not None:
            await asyncio.shield(self.task)

    async def beat(self) -> None:
        """Refresh the heartbeat, see whether a reader is attached, look for a cancel request."""
        store, run_id = self.store, self.run_id

        def commands(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.set(store.key(run_id, "alive"), "1", px=int(ALIVE_SECONDS * 1000))
            pipe.expire(store.key(run_id, "meta"), int(store.ttl))
            pipe.exists(store.key(run_id, "reader"))
            pipe.get(store.key(run_id, "cancel"))
            return pipe.execute()

        _, _, reader, cancel = await store._call(commands)
        if reader:
            self.reader_seen = time.monotonic()
        if cancel and not self.cancelled:
            self.cancelled = True
            self.on_cancel()

    async def _write(self) -> None:
        while True:
            try:
                async with asyncio.timeout(HEARTBEAT_SECONDS):
                    await self.wake.wait()
                if not self.closing:
                    await asyncio.sleep(BATCH_SECONDS)  # one pipeline for the events of the next moment
            except TimeoutError:
                pass
            self.wake.clear()
            try:
                await self._flush()
                if self.closing:  # set after the last append: one more batch holds whatever came meanwhile
                    await self._flush()
                    return await self._expire()
                await self.beat()
            except StoreUnavailable as exc:
                self._broke(exc)
                if self.closing:
                    return

    async def _flush(self) -> None:
        async with self.lock:  # the writer task and the driver's write: in order, each batch once
            batch, self.pending = self.pending, []
            if batch:
                await self._add(batch)

    async def _add(self, batch: list[tuple[int, str, str]]) -> None:
        store, stream = self.store, self.store.key(self.run_id)

        def commands(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.xadd(stream, _entry(batch), id=f"{batch[-1][0]}-0", maxlen=store.max_events, approximate=True)
            pipe.expire(stream, int(store.ttl))
            pipe.expire(store.key(self.run_id, "meta"), int(store.ttl))
            return pipe.execute()

        await store._call(commands)

    async def _expire(self) -> None:
        store, run_id = self.store, self.run_id

        def commands(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.delete(store.key(run_id, "alive"))
            for part in ("", "meta"):
                pipe.expire(store.key(run_id, part), int(store.ttl))
            return pipe.execute()

        await store._call(commands)
