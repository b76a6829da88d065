"""A resumable run's writer in Redis (``redis_store.RedisEvents.open`` makes one per run): its events batched into
the run's stream by one task, which also keeps the run's heartbeat, through the atomic scripts of
``redis_scripts.py``. It sees the store through :class:`LogStore`, the members of ``RedisEvents`` it calls."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from .event_store import ALIVE_SECONDS, BATCH_SECONDS, HEARTBEAT_SECONDS, StoreUnavailable
from .redis_scripts import APPEND, BEAT

logger = logging.getLogger("strands_agui.server.resumable.redis_store")  # the store's one logger


def digest(text: str) -> str:
    """The sha256 of a run id or principal: what names its keys (no id can name another's)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class LogStore(Protocol):
    """What a run's writer calls of its store (``redis_store.RedisEvents``)."""

    running: dict[str, RedisRunLog]  # this process's live runs, by id
    ttl: float
    max_events: int

    def key(self, run_id: str, part: str) -> str: ...

    def live_key(self, principal: str | None) -> str: ...

    async def call(self, make: Callable[[Any], Any]) -> Any: ...

    async def script(self, source: str, keys: list[str], args: list[Any]) -> Any: ...


def _entry(batch: list[tuple[int, str, str]]) -> tuple[str, str, str]:
    """One stream entry for a batch of consecutive events: the first number, the types, the JSON texts one a
    line (an event's wire JSON never holds a raw line break)."""
    return str(batch[0][0]), ",".join(kind for _, _, kind in batch), "\n".join(data for _, data, _ in batch)



class RedisRunLog:
    """A run's writer: appends are batched by one task, which also keeps the heartbeat (every
    ``HEARTBEAT_SECONDS``, however often batches go out). The task stores what has waited ``delay`` since the
    oldest event not stored was appended (a timer armed by the append that found nothing pending wakes it):
    ``BATCH_SECONDS``, or while the run's transport writes (each of its writes flushes the log first) its
    coalescing window (``written_every``), so the transport's flushes store the run and the task only what they
    have not stored by then (a reader that stopped reading, a loaded loop): an event waits at most one window
    either way, and a paced run's events go out in one script call per window, not one per window and two more
    per ``BATCH_SECONDS``; the task is not woken for what the transport stored."""

    def __init__(self, store: LogStore, run_id: str, principal: str | None,
                 on_cancel: Callable[[], None]) -> None:
        self.store, self.run_id, self.principal, self.on_cancel = store, run_id, principal, on_cancel
        self.loop = asyncio.get_running_loop()
        self.pending: list[tuple[int, str, str]] = []
        self.since = 0.0  # loop time the oldest pending event was appended
        self.delay = BATCH_SECONDS  # how long an event may wait for the task (``written_every``)
        self.timer: asyncio.TimerHandle | None = None  # wakes the task when the oldest pending event waited ``delay``
        self.timer_at = 0.0  # when it fires
        self.seq = 0
        self.stored = 0  # the number of the last event stored
        self.wake = asyncio.Event()
        self.closing = False
        self.cancelled = False
        self.reader_seen = float("-inf")
        self.lost: int | None = None  # the first event not stored: the log stops there (docs/reliability.md)
        self.thread: str | None = None  # the key of the thread it is the live run of (``mark_thread``)
        self.task: asyncio.Task[None] | None = None
        self.lock = asyncio.Lock()

    def start(self) -> None:
        self.task = self.loop.create_task(self._write(), name=f"strands-agui-log-{self.run_id}")

    def cancel(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self.on_cancel()

    def append(self, data: str, kind: str) -> int:
        self.seq += 1
        if self.lost is None:
            if not self.pending:
                self.since = self.loop.time()
                if self.timer is None:
                    self._arm()
            self.pending.append((self.seq, data, kind))
        return self.seq

    def written_every(self, window: float | None) -> None:
        self.delay = BATCH_SECONDS if window is None else max(window, BATCH_SECONDS)
        if self.timer is not None:
            self.timer.cancel()
            self._arm()

    def _arm(self) -> None:
        self.timer_at = self.since + self.delay
        self.timer = self.loop.call_at(self.timer_at, self._due)

    def _due(self) -> None:
        """The timer: wake the task when the oldest event still pending has waited ``delay``; nothing pending
        (the transport stored it): nothing; a younger one pending: again when it has waited."""
        self.timer = None
        if not self.pending:
            return
        if self.since + self.delay <= self.timer_at:
            self.wake.set()
        else:
            self._arm()

    def reader_attached(self, within: float) -> bool:
        return time.monotonic() - self.reader_seen < within

    async def flush(self) -> None:
        try:
            await self._flush()
        except StoreUnavailable as exc:
            self._broke(str(exc))

    def _broke(self, why: str) -> None:
        """Stop storing: the log ends at the last event stored, and says so (``lost``) once Redis answers."""
        if self.lost is None:
            logger.warning("run %s: events no longer stored: %s", self.run_id, why)
            self.lost = self.stored + 1
        self.pending.clear()

    async def close(self) -> None:
        self.closing = True
        self.wake.set()
        if self.task is not None:
            await asyncio.shield(self.task)

    async def beat(self) -> None:
        """Refresh the heartbeat and the run's place among the live runs, writing the run's meta again when
        Redis lost it (restarted); see whether a reader is attached; look for a cancel request."""
        store, run_id = self.store, self.run_id
        keys = [store.key(run_id, part) for part in ("meta", "alive", "reader", "cancel")]
        recreated, reader, cancel = await store.script(
            BEAT, [*keys, store.live_key(None), store.live_key(self.principal), *filter(None, [self.thread])],
            [self.principal or "", int(ALIVE_SECONDS * 1000), int(store.ttl), digest(run_id),
             "" if self.lost is None else self.lost])
        if recreated and self.lost is None:
            self._broke("the event store lost the run (restarted?)")
            await self.beat()  # say so at once
            return
        if reader:
            self.reader_seen = time.monotonic()
        if cancel:
            self.cancel()

    async def _write(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + HEARTBEAT_SECONDS  # the next heartbeat: once per HEARTBEAT_SECONDS, not per batch
        try:
            while True:
                try:
                    async with asyncio.timeout(max(0.0, due - loop.time())):
                        await self.wake.wait()
                    woken = True
                except TimeoutError:
                    woken = False  # the heartbeat's turn: what is pending is the timer's
                self.wake.clear()
                try:
                    if woken:
                        await self._flush()
                    if self.closing:  # set after the last append: one more batch holds whatever came meanwhile
                        await self._flush()
                        return await self._expire()
                    if loop.time() >= due:
                        due = loop.time() + HEARTBEAT_SECONDS
                        await self.beat()
                except StoreUnavailable as exc:
                    self._broke(str(exc))
                    if self.closing:
                        return
        finally:
            if self.timer is not None:
                self.timer.cancel()
            self.store.running.pop(self.run_id, None)

    async def _flush(self) -> None:
        async with self.lock:  # the writer task and the driver's write: in order, each batch once
            batch, self.pending = self.pending, []
            if batch and self.lost is None:
                await self._add(batch)

    async def _add(self, batch: list[tuple[int, str, str]]) -> None:
        store = self.store
        written = await store.script(
            APPEND, [store.key(self.run_id, "events"), store.key(self.run_id, "meta")],
            [store.max_events, f"{batch[-1][0]}-0", *_entry(batch), int(store.ttl)])
        if not written:
            self._broke("the event store lost the run (restarted?)")
            return
        self.stored = batch[-1][0]

    async def _expire(self) -> None:
        store, run_id = self.store, self.run_id

        def commands(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.delete(store.key(run_id, "alive"))
            for part in ("events", "meta"):
                pipe.expire(store.key(run_id, part), int(store.ttl))
            member = digest(run_id)
            pipe.zrem(store.live_key(None), member)
            pipe.zrem(store.live_key(self.principal), member)
            return pipe.execute()

        await store.call(commands)
