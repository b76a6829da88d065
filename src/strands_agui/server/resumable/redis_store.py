"""Resumable runs' events in Redis Streams (``--events redis://HOST:PORT/DB``): the layout and its guarantees
are described in ``event_store.py``, beside the in-memory store and the protocol both implement.

Every key of a run is ``<prefix>:run:{<sha256 of the run's key>}:<part>``, so no run id (any string, ``:meta``
included) can name another run's key or another kind of key, and a run's keys share one hash tag. The only
writes that must be atomic (opening a run, appending a batch, the heartbeat) are ``redis_scripts.py``'s scripts.
"""

from __future__ import annotations

import asyncio
import uuid
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

from .event_store import (
    ALIVE_SECONDS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_EVENTS,
    DEFAULT_MAX_LIVE_RUNS,
    DEFAULT_MAX_LIVE_RUNS_PER_PRINCIPAL,
    DEFAULT_TTL_SECONDS,
    HEARTBEAT_SECONDS,
    READ_BLOCK_SECONDS,
    Bounds,
    RunExists,
    RunLimit,
    RunLog,
    Stored,
    StoreUnavailable,
)
from .redis_log import RedisRunLog, digest
from .redis_scripts import OPEN
from .redis_watch import Watch, entry_number

SETTLE_SECONDS = 2 * HEARTBEAT_SECONDS  # after Redis lost every key: how long new runs wait for live ones to come back


class RedisEvents:
    """Resumable runs' events in Redis Streams, shared by every worker using the same ``url``.

    At most ``max_live_runs`` live runs in all and ``max_live_runs_per_principal`` per named principal (sorted
    sets of live runs, each entry expiring with its run's heartbeat): past them a new run is refused
    (:class:`RunLimit`). A stale connection (Redis restarted) is retried once on a fresh one (redis-py's
    ``Retry``); a timeout is not retried, so a frozen Redis costs ``timeout`` seconds per call, then 503.
    Each event loop (each worker) has at most ``max_connections`` connections for its calls (redis-py's
    ``BlockingConnectionPool``): past them a call waits for a free one, at most ``timeout`` seconds, then is
    :class:`StoreUnavailable` like any Redis failure; its followers wait for new events on one connection more,
    their loop's own (``redis_watch.Watch``), so a waiting follower holds none of the calls' connections.
    The runs this process is running are also known here (``running``), so they stay cancellable, and their
    ids taken, whatever Redis lost."""

    def __init__(self, url: str, *, prefix: str = "strands-agui", max_events: int = DEFAULT_MAX_EVENTS,
                 ttl: float = DEFAULT_TTL_SECONDS, timeout: float = 2.0, max_live_runs: int = DEFAULT_MAX_LIVE_RUNS,
                 max_live_runs_per_principal: int = DEFAULT_MAX_LIVE_RUNS_PER_PRINCIPAL,
                 max_connections: int = DEFAULT_MAX_CONNECTIONS) -> None:
        try:
            import redis.asyncio  # noqa: F401 - checked here so a missing extra fails at startup
        except ImportError as exc:  # pragma: no cover - the redis extra
            raise RuntimeError("RedisEvents needs the redis package: pip install 'strands-agui[redis]'") from exc
        for name, value in (("max_live_runs", max_live_runs),
                            ("max_live_runs_per_principal", max_live_runs_per_principal),
                            ("max_connections", max_connections)):
            if not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        self.url, self.prefix, self.max_events, self.ttl, self.timeout = url, prefix, max_events, ttl, timeout
        self.max_live_runs, self.max_live_runs_per_principal = max_live_runs, max_live_runs_per_principal
        self.max_connections = max_connections
        # one client (its pool), one watch and one count of calls under way per event loop: each worker has its own
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[Any, Watch, _Calls]] = \
            weakref.WeakKeyDictionary()
        self.running: dict[str, RedisRunLog] = {}  # this process's live runs, by key

    def _connect(self, **options: Any) -> Any:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError

        options = {"socket_timeout": self.timeout, **options}
        return aioredis.BlockingConnectionPool.from_url(
            self.url, socket_connect_timeout=self.timeout, decode_responses=True,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            retry_on_error=[RedisConnectionError], **options)

    def _loop(self) -> tuple[Any, Watch, _Calls]:
        import redis.asyncio as aioredis

        loop = asyncio.get_running_loop()
        found = self._loops.get(loop)
        if found is None:
            client = aioredis.Redis.from_pool(self._connect(max_connections=self.max_connections,
                                                            timeout=self.timeout))
            watch = Watch(f"{self.prefix}:wake:{uuid.uuid4().hex}", max(1, int(self.ttl)), self.call,
                          lambda: self._connect(max_connections=1, timeout=None,  # a blocked read: 1 s, then answers
                                                socket_timeout=READ_BLOCK_SECONDS + self.timeout))
            found = self._loops[loop] = (client, watch, _Calls())
        return found

    def client(self) -> Any:
        """This event loop's client: at most ``max_connections`` connections, a call waiting ``timeout`` at most
        for a free one (redis-py's ``ConnectionError`` "No connection available.", then)."""
        return self._loop()[0]

    def key(self, run_id: str, part: str) -> str:
        """A run's key: ``<prefix>:run:{<sha256 of run_id>}:<part>`` (events, meta, alive, reader, cancel)."""
        return f"{self.prefix}:run:{{{digest(run_id)}}}:{part}"

    def live_key(self, principal: str | None) -> str:
        """The sorted set of live runs: every run's (None), or a named principal's."""
        return f"{self.prefix}:live" if principal is None else f"{self.prefix}:live:{digest(principal)[:32]}"

    async def call(self, make: Callable[[Any], Any]) -> Any:
        """One Redis command (or pipeline, or script); any Redis failure is :class:`StoreUnavailable`. Counted while
        it waits for a connection or holds one (:meth:`busy`)."""
        import redis.exceptions

        client, _watch, calls = self._loop()
        calls.under_way += 1
        try:
            return await make(client)
        except (redis.exceptions.RedisError, OSError) as exc:
            raise StoreUnavailable(f"the event store at {self.url} cannot be reached: {exc}") from exc
        finally:
            calls.under_way -= 1

    def busy(self) -> str | None:
        """Why a new run's events could not be stored now: this loop's calls hold every connection of its pool (the
        next one waits for a free one, at most ``timeout``, then its run's log stops), so admission control refuses
        new resumable runs (``server/request/admission.py``) rather than accept runs that would lose their events.
        None while a connection is free."""
        found = self._loops.get(asyncio.get_running_loop())
        if found is None or found[2].under_way < self.max_connections:
            return None
        return (f"the event store's {self.max_connections} connections of this worker are all in use "
                f"({found[2].under_way} calls under way)")

    async def script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        return await self.call(lambda r: r.eval(source, len(keys), *keys, *args))

    async def open(self, run_id: str, principal: str | None, on_cancel: Callable[[], None]) -> RunLog:
        if run_id in self.running:  # Redis may have lost it: this process has not
            raise RunExists(run_id)
        per_principal = principal is not None
        for _ in range(3):
            answer = await self.script(
                OPEN, [self.key(run_id, "meta"), self.live_key(None), self.live_key(principal),
                        f"{self.prefix}:epoch", f"{self.prefix}:settling", self.key(run_id, "alive")],
                [principal or "", self.max_live_runs, self.max_live_runs_per_principal if per_principal else 0,
                 int(ALIVE_SECONDS * 1000), int(self.ttl), digest(run_id), int(SETTLE_SECONDS * 1000)])
            if not isinstance(answer, int):
                break
            await asyncio.sleep(answer / 1000)
        else:
            raise StoreUnavailable(f"the event store at {self.url} keeps restarting")
        if answer == "exists":
            raise RunExists(run_id)
        if answer == "live_runs_per_principal":
            raise RunLimit(answer, self.max_live_runs_per_principal)
        if answer == "live_runs":
            raise RunLimit(answer, self.max_live_runs)
        log = self.running[run_id] = RedisRunLog(self, run_id, principal, on_cancel)
        log.start()  # opened alive: its first heartbeat comes within HEARTBEAT_SECONDS
        return log

    async def known(self, run_id: str, principal: str | None) -> bool:
        if run_id in self.running:
            return True
        owner = await self.call(lambda r: r.hget(self.key(run_id, "meta"), "principal"))
        return owner is not None and owner == (principal or "")

    async def bounds(self, run_id: str) -> Bounds:
        def commands(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.xrange(self.key(run_id, "events"), count=1)
            pipe.xrevrange(self.key(run_id, "events"), count=1)
            pipe.hget(self.key(run_id, "meta"), "lost")
            return pipe.execute()

        oldest, newest, lost = await self.call(commands)
        if not newest:
            return Bounds(1, 0, False, lost is not None)
        return Bounds(int(oldest[0][1]["n"]), entry_number(newest[0][0]), _events(newest[0][1])[-1].terminal,
                      lost is not None)

    def thread_key(self, thread: str) -> str:
        """A thread's latest run: ``<prefix>:thread:{<sha256 of thread>}`` (the run's key, a space, its entry)."""
        return f"{self.prefix}:thread:{{{digest(thread)}}}"

    async def mark_thread(self, thread: str, run_id: str, entry: str) -> None:
        """The thread's key names the run for ``ttl`` seconds, refreshed by the run's heartbeat while it runs."""
        await self.call(lambda r: r.set(self.thread_key(thread), f"{run_id} {entry}", ex=max(1, int(self.ttl))))
        log = self.running.get(run_id)
        if log is not None:
            log.thread = self.thread_key(thread)

    async def thread_run(self, thread: str) -> str | None:
        found = await self.call(lambda r: r.get(self.thread_key(thread)))
        if not found:
            return None
        run_id, _, entry = found.partition(" ")
        if run_id in self.running:  # this process runs it
            return entry
        alive = await self.call(lambda r: r.exists(self.key(run_id, "alive")))
        return entry if alive else None

    async def follow(self, run_id: str, after: int) -> AsyncIterator[Stored]:
        """The run's events after ``after`` to its terminal one: each read (the reader key refreshed, what is
        new read, in one call) is followed, when nothing was new, by a wait for this loop's watch to see the
        stream grow, at most ``READ_BLOCK_SECONDS``; then the run's worker is looked at."""
        stream, reader = self.key(run_id, "events"), self.key(run_id, "reader")
        position = f"{after}-0"
        last = False
        watch = self._loop()[1]
        watched = await watch.enter(stream, after)
        try:
            while True:
                grew = watched.grew  # before the read: growth seen during it wakes the wait below
                _, reply = await self.call(_read(reader, stream, position))
                for _stream, entries in reply or ():
                    for entry_id, fields in entries:
                        position = entry_id
                        events = _events(fields)
                        if events[0].seq > after + 1:
                            return  # the events after ``after`` are gone (the cap, or Redis lost them): no gap
                        for event in events:
                            if event.seq > after:
                                after = event.seq
                                yield event
                            if event.terminal:
                                return
                    watched.saw(entry_number(position))
                if reply:
                    continue
                if last:
                    return  # nothing came after the run's worker stopped: the caller reports RUN_LOST
                try:
                    async with asyncio.timeout(READ_BLOCK_SECONDS):
                        await grew.wait()
                    continue
                except TimeoutError:
                    pass

                def state(r: Any) -> Any:
                    pipe = r.pipeline(transaction=False)
                    pipe.exists(self.key(run_id, "alive"))
                    pipe.hexists(self.key(run_id, "meta"), "lost")
                    return pipe.execute()

                alive, lost = await self.call(state)
                last = not alive or bool(lost)  # the log will not grow: read what came since, then stop
        finally:
            watch.leave(stream)

    async def cancel(self, run_id: str, principal: str | None) -> str:
        log = self.running.get(run_id)
        if log is not None:  # this process runs it: cancel here, whatever Redis knows
            log.cancel()
            return "requested"
        if not await self.known(run_id, principal):
            return "unknown"
        if not await self.call(lambda r: r.exists(self.key(run_id, "alive"))):
            return "ended"
        await self.call(lambda r: r.set(self.key(run_id, "cancel"), "1", ex=int(self.ttl)))
        return "requested"


class _Calls:
    """One loop's Redis calls under way (waiting for a connection of its pool, or holding one)."""

    __slots__ = ("under_way",)

    def __init__(self) -> None:
        self.under_way = 0


def _read(reader: str, stream: str, position: str) -> Callable[[Any], Any]:
    """The reader key refreshed and ``XREAD`` (not waiting) from ``position``, in one call."""
    def commands(r: Any) -> Any:
        pipe = r.pipeline(transaction=False)
        pipe.set(reader, "1", px=int(ALIVE_SECONDS * 1000))
        pipe.xread({stream: position}, count=500)
        return pipe.execute()
    return commands


def _events(fields: dict[str, str]) -> list[Stored]:
    first = int(fields["n"])
    return [Stored(first + i, data, kind)
            for i, (kind, data) in enumerate(zip(fields["t"].split(","), fields["d"].split("\n"), strict=True))]
