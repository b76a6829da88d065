"""The Redis event store's followers waiting for new events (``redis_store.py``): per event loop, one ``XREAD
BLOCK`` over every stream followed there, on a connection of its own, so a waiting follower holds none of the
store's pooled connections (issue 31: with one blocked ``XREAD`` each, followers took the connections the runs'
writes needed). A follower reads with a plain ``XREAD`` (the pool's); when nothing is new, it waits for the watch
to see its stream grow past what it read, at most ``READ_BLOCK_SECONDS``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .event_store import READ_BLOCK_SECONDS

logger = logging.getLogger(__name__)


class Watched:
    """A stream this loop's followers wait on: the newest entry seen (its number), and an event set, then
    replaced, each time it grows."""

    def __init__(self, seen: int) -> None:
        self.seen, self.followers, self.grew = seen, 0, asyncio.Event()

    def saw(self, number: int) -> None:
        if number > self.seen:
            self.seen = number
            self.grew.set()
            self.grew = asyncio.Event()


class Watch:
    """One event loop's followers waiting for new events (``enter`` / ``leave`` a stream), on the connection
    ``connect`` makes; ``call`` is the store's call on its pool. A stream that starts being watched while the
    ``XREAD`` waits ends the wait: an entry added to this watch's own ``wake_key`` stream (expiring after
    ``ttl`` seconds)."""

    def __init__(self, wake_key: str, ttl: int, call: Callable[[Callable[[Any], Any]], Awaitable[Any]],
                 connect: Callable[[], Any]) -> None:
        self.wake_key, self.ttl, self.call, self.connect = wake_key, ttl, call, connect
        self.streams: dict[str, Watched] = {}
        self.woken = "0-0"
        self.reading: frozenset[str] | None = None  # the streams of the XREAD waiting now
        self.task: asyncio.Task[None] | None = None
        self.client: Any = None

    async def enter(self, stream: str, after: int) -> Watched:
        watched = self.streams.get(stream)
        if watched is None:
            watched = self.streams[stream] = Watched(after)
        watched.followers += 1
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._watch(), name="strands-agui-redis-watch")
        elif self.reading is not None and stream not in self.reading:
            key, ttl = self.wake_key, self.ttl

            def wake(r: Any) -> Any:
                pipe = r.pipeline(transaction=False)
                pipe.xadd(key, {"w": "1"}, maxlen=1)
                pipe.expire(key, ttl)
                return pipe.execute()

            try:
                await self.call(wake)
            except BaseException:
                self.leave(stream)
                raise
        return watched

    def leave(self, stream: str) -> None:
        watched = self.streams.get(stream)
        if watched is not None:
            watched.followers -= 1
            if watched.followers <= 0:
                del self.streams[stream]

    async def _watch(self) -> None:
        """``XREAD BLOCK`` while any follower waits (each stream from the newest entry seen); a failed read
        is retried after ``READ_BLOCK_SECONDS`` (the followers' own calls report the store down)."""
        import redis.asyncio as aioredis
        import redis.exceptions

        if self.client is None:  # its own connection (``connect``: a pool of one)
            self.client = aioredis.Redis.from_pool(self.connect())
        while self.streams:
            positions = {stream: f"{watched.seen}-0" for stream, watched in self.streams.items()}
            positions[self.wake_key] = self.woken
            self.reading = frozenset(positions)
            try:
                reply = await self.client.xread(positions, count=1, block=int(READ_BLOCK_SECONDS * 1000))
            except (redis.exceptions.RedisError, OSError) as exc:
                self.reading = None  # a stream entered meanwhile is read next time: no wake needed
                logger.debug("event store watch: %s", exc)
                await asyncio.sleep(READ_BLOCK_SECONDS)
                continue
            self.reading = None
            for stream, entries in reply or ():
                if stream == self.wake_key:
                    self.woken = entries[-1][0]
                elif (watched := self.streams.get(stream)) is not None:
                    watched.saw(entry_number(entries[-1][0]))


def entry_number(entry_id: str) -> int:
    """The number of the last event of a stream entry (its id: ``7-0`` -> 7)."""
    return int(entry_id.split("-")[0])
