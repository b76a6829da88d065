"""Resumable runs' events in Redis Streams (``--events redis://HOST:PORT/DB``): the layout and its guarantees
are described in ``events.py``, beside the in-memory store and the protocol both implement."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from .events import (
    ALIVE_SECONDS,
    BATCH_SECONDS,
    DEFAULT_MAX_EVENTS,
    DEFAULT_TTL_SECONDS,
    HEARTBEAT_SECONDS,
    READ_BLOCK_SECONDS,
    Bounds,
    RunExists,
    RunLog,
    Stored,
    StoreUnavailable,
)

logger = logging.getLogger(__name__)


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
