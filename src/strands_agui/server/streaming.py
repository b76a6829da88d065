"""The streaming path: one run's AG-UI events -> frames on the socket, in the request's own task.

:class:`RunStream` is a Starlette ``StreamingResponse`` that iterates the run itself. Per event it does the
encoding (``ag_ui.encoder.EventEncoder`` for SSE, the AG-UI protobuf framing for ``proto``) and one ASGI
``send``: no queue, no producer task, no timer per frame. One helper task per request, the *watcher*, waits
on ASGI ``receive`` for the client's disconnect and wakes once per keep-alive period.

Invariants:

* **One task iterates and closes the run** (the request's). Strands keeps OpenTelemetry context in
  contextvars: a run iterated in one task and closed in another, or closed with ``aclose()`` while Strands is
  suspended at a ``yield``, leaves inner generators to the garbage collector and logs "Failed to detach
  context". So the run is stopped by cancelling the request task, which raises ``CancelledError`` where
  Strands awaits (the model, a tool) and Strands unwinds its own generators. When the cancellation instead
  lands outside the run (the task was writing), :func:`_unwind` resumes the run with a cancellation pending,
  so it still ends at Strands' next await.
* **Disconnect.** Under uvicorn (ASGI spec 2.3) ``receive`` returns ``http.disconnect`` as soon as the
  client leaves; the watcher then cancels the run at once, even in the middle of a silent tool call.
* **Keep-alive** (SSE only: the protobuf framing has no frame a client skips, so it sends none). The stream
  records the loop time of each frame it writes (no timer). The watcher sleeps until ``keepalive`` seconds
  after the last frame and, if nothing was written since, sends ``fastapi.sse.KEEPALIVE_COMMENT``
  (``: ping``). Frames and pings never interleave mid-frame (one lock, never contended on the hot path).
* **Back-pressure.** ``send`` suspends while the transport's write buffer is above its high-water mark
  (uvicorn's flow control), and the run is not iterated meanwhile: a slow reader holds at most that buffer
  plus one frame. A frame still unsent ``stall`` (twice ``keepalive``) seconds after it was handed over means
  the reader has stopped: the run is cancelled.
* **Coalescing.** A frame is written at once when no frame was written in the last ``coalesce`` seconds
  (so the first, RUN_STARTED, always is), and so is the terminal frame; any other frame waits, at most
  ``coalesce`` seconds, to go out in one ``send`` with the frames that follow it. A run producing frames
  faster than one per ``coalesce`` (a fast model, a busy server) costs one write per ``coalesce``, not one
  per event; a slower one is written frame by frame. Frames still waiting at their deadline are written by
  the watcher, whose one wake-up is moved (not a timer per frame). ``coalesce=0`` writes every frame at once.
* **Fairness.** After each AG-UI event the stream yields to the loop once (a loop turn, no timer), and the
  endpoint runs the agent with ``pace=yield_to_loop``, so the run does the same after each Strands event that
  produced no AG-UI event. One Strands event's work is then one loop step: a run never holds the loop longer,
  even with a model that streams without awaiting, and on a busy server each loop turn is short, so a new
  request's first step, which writes RUN_STARTED, waits behind less (``docs/benchmarks.md``).
* **Ends.** The frames end after the run's one terminal event (RUN_FINISHED or RUN_ERROR). An event that
  fails to encode becomes RUN_ERROR ``ENCODING_ERROR`` and ends the run; a run that raises, or stops
  without a terminal event, gets a RUN_ERROR ``ADAPTER_ERROR``. When ``__call__`` returns, the run is
  closed and the watcher has finished.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from ag_ui.core import BaseEvent, EventType, RunErrorEvent
from ag_ui.encoder import EventEncoder
from fastapi.sse import KEEPALIVE_COMMENT
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from .proto import PROTO_MEDIA_TYPE, proto_frame

logger = logging.getLogger(__name__)

_TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})
COALESCE_SECONDS = 0.05  # default longest wait of a frame for the frames that follow it (see Coalescing)
UNWIND_LIMIT = 10_000  # events a cancelled run may still yield before it is closed outright
_ENCODER = EventEncoder()


def encode_event(event: BaseEvent) -> str:
    """The wire JSON of one AG-UI event: camelCase, no ``null`` fields, never a raw newline.

    Raises whatever pydantic raises for a value it cannot serialize.
    """
    return event.model_dump_json(by_alias=True, exclude_none=True)


def yield_to_loop() -> Awaitable[None]:
    """One turn of the event loop: what the stream and its run give other requests between events."""
    return asyncio.sleep(0)


def sse_frame(event: BaseEvent) -> bytes:
    """One SSE frame, ``data: <json>\\n\\n``, framed by ``ag_ui``'s own encoder."""
    return _ENCODER.encode(event).encode()


@dataclass(frozen=True)
class Framing:
    """How a run goes on the wire: its media type, how one event becomes bytes, its keep-alive frame."""

    media_type: str
    frame: Callable[[BaseEvent], bytes]
    keepalive: bytes | None


SSE = Framing("text/event-stream", sse_frame, KEEPALIVE_COMMENT)
PROTO = Framing(PROTO_MEDIA_TYPE, proto_frame, None)
"""The AG-UI protobuf framing (``server/proto``). It has no frame a client skips, so an idle proto stream
sends no keep-alive bytes: behind a proxy with an idle timeout, a long silent tool call needs SSE."""
FRAMINGS = {framing.media_type: framing for framing in (SSE, PROTO)}


class RunStream(StreamingResponse):
    """Stream one run's events with ``framing``; see the module docstring for the invariants."""

    media_type = SSE.media_type  # what OpenAPI documents for the route

    def __init__(self, events: AsyncIterator[BaseEvent], *, framing: Framing = SSE, keepalive: float = 15.0,
                 coalesce: float = COALESCE_SECONDS) -> None:
        self.status_code = 200
        self.media_type = framing.media_type
        self.background = None
        self.init_headers({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self.events = events
        self.framing = framing
        self.keepalive = keepalive
        self.stall = 2 * keepalive
        self.coalesce = min(coalesce, keepalive)
        self._lock = asyncio.Lock()
        self._last = 0.0  # loop time the last frame was handed to ``send``
        self._pending: list[bytes] = []  # encoded frames not yet handed to ``send``
        self._flushed = float("-inf")  # loop time of the last write of frames
        self._timer: asyncio.Timeout | None = None  # the watcher's current wake-up
        self._writing = False  # a ``send`` of the stream is in progress
        self._stopped: str | None = None  # set by the watcher before it cancels the stream
        self._in_run = False  # the stream is inside the run (awaiting its next event)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        loop = asyncio.get_running_loop()
        self._last = loop.time()
        host = asyncio.current_task()
        assert host is not None
        watcher = loop.create_task(self._watch(host, receive, send), name="strands-agui-watch")
        try:
            finished = await self._stream(send)
            watcher.cancel()  # before the end of the response: the client may send its next request at once
            if finished:
                async with self._lock:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            await asyncio.wait({watcher})

    async def _stream(self, send: Send) -> bool:
        """Write the run's frames. False when the watcher stopped the run (the response is abandoned)."""
        run = self.events
        try:
            await self._frames(run, send)
            return True
        except asyncio.CancelledError:
            if self._stopped is None:
                raise  # not ours: the server is shutting down
            task = asyncio.current_task()
            assert task is not None
            task.uncancel()
            if not self._in_run:
                await _unwind(run)
            logger.debug("run stopped: %s", self._stopped)
            return False
        finally:
            await run.aclose()  # type: ignore[attr-defined]

    async def _frames(self, run: AsyncIterator[BaseEvent], send: Send) -> None:
        loop = asyncio.get_running_loop()
        frame_of, ended = self.framing.frame, False
        failure = "the run stopped without RUN_FINISHED or RUN_ERROR"
        try:
            while not ended:
                self._in_run = True
                try:
                    event = await anext(run)
                except StopAsyncIteration:
                    break
                self._in_run = False
                frame, ended = _encode(frame_of, event)
                self._pending.append(frame)
                now = loop.time()
                if ended or now - self._flushed >= self.coalesce:
                    await self._flush(send, now)
                elif len(self._pending) == 1:
                    self._wake_at(self._flushed + self.coalesce)  # the watcher writes it if no frame follows
                if not ended:
                    await yield_to_loop()  # fairness: one event's work per loop turn
        except Exception as exc:  # noqa: BLE001 - mid-stream nothing may escape as a 500
            if not self._in_run:
                raise
            logger.exception("StrandsAgent.run failed")
            failure = f"{type(exc).__name__}: {exc}"
        self._in_run = False
        if not ended:
            self._pending.append(frame_of(RunErrorEvent(message=failure, code="ADAPTER_ERROR")))
            await self._flush(send, loop.time())

    async def _flush(self, send: Send, now: float) -> None:
        """Hand the pending frames to ``send`` as one body, from the stream's task."""
        self._last = self._flushed = now
        self._writing = True
        async with self._lock:
            await self._send_pending(send)
        self._writing = False
        self._wake_at(now + self.keepalive)  # no earlier wake-up for frames already written

    async def _send_pending(self, send: Send) -> None:
        if self._pending:
            body = b"".join(self._pending)
            self._pending.clear()
            await send({"type": "http.response.body", "body": body, "more_body": True})

    def _wake_at(self, when: float) -> None:
        """Move the watcher's next wake-up to ``when`` (it recomputes its deadline whenever it wakes)."""
        if self._timer is not None and self._timer.expired() is False:
            self._timer.reschedule(when)

    async def _watch(self, host: asyncio.Task[None], receive: Receive, send: Send) -> None:
        """Cancel ``host`` when the client leaves or stops reading; meanwhile write the frames that waited
        ``coalesce`` and the keep-alive frames."""
        loop = asyncio.get_running_loop()
        while True:
            try:
                async with asyncio.timeout_at(self._next_wake()) as self._timer:
                    message = await receive()
            except TimeoutError:
                message = None
            self._timer = None
            if message is None:
                reason = await self._on_wake(loop.time(), send)
                if reason is not None:
                    return self._stop(host, reason)
            elif message["type"] == "http.disconnect":
                return self._stop(host, "the client disconnected")

    def _next_wake(self) -> float:
        wake = self._last + (self.stall if self._writing else self.keepalive)
        if self._pending and not self._writing:
            return min(wake, self._flushed + self.coalesce)
        return wake

    async def _on_wake(self, now: float, send: Send) -> str | None:
        """The watcher's writes: pending frames that waited ``coalesce``, else a keep-alive frame after
        ``keepalive`` of silence. Returns why the run must stop (the reader stopped reading), or None."""
        stalled = f"the client read nothing for {self.stall:g} s"
        if self._writing:
            return stalled if now - self._last >= self.stall else None
        if self._pending and now >= self._flushed + self.coalesce:
            self._flushed = now
            write = self._send_pending
        elif now - self._last >= self.keepalive and self.framing.keepalive:
            write = self._send_keepalive
        else:
            return None
        self._last = now
        try:
            async with asyncio.timeout(self.stall), self._lock:
                await write(send)
        except TimeoutError:
            return stalled
        return None

    async def _send_keepalive(self, send: Send) -> None:
        await send({"type": "http.response.body", "body": self.framing.keepalive, "more_body": True})

    def _stop(self, host: asyncio.Task[None], reason: str) -> None:
        self._stopped = reason
        host.cancel()


def _encode(frame_of: Callable[[BaseEvent], bytes], event: BaseEvent) -> tuple[bytes, bool]:
    """The frame for ``event`` and whether it ends the run. An event that cannot be serialized becomes a
    RUN_ERROR ``ENCODING_ERROR`` frame, which ends the run."""
    try:
        return frame_of(event), event.type in _TERMINAL
    except Exception as exc:  # noqa: BLE001 - reported to the client as RUN_ERROR
        kind = getattr(event.type, "value", event.type)
        logger.warning("could not serialize a %s event: %s", kind, exc)
        message = f"A {kind} event could not be serialized: {exc}"
        return frame_of(RunErrorEvent(message=message, code="ENCODING_ERROR")), True


async def _unwind(run: AsyncIterator[BaseEvent]) -> None:
    """End a run that is suspended at a ``yield`` (its consumer was cancelled while writing) at Strands' next
    await: resume it with a cancellation pending and discard what it still yields. A run that keeps
    yielding without ever awaiting is closed after ``UNWIND_LIMIT`` events."""
    task = asyncio.current_task()
    assert task is not None
    task.cancel()
    delivered = False
    try:
        for _ in range(UNWIND_LIMIT):
            await anext(run)
    except asyncio.CancelledError:
        delivered = True
    except StopAsyncIteration:
        pass
    except Exception:  # noqa: BLE001 - the client is gone; nothing to report to
        logger.debug("a stopped run raised while unwinding", exc_info=True)
    if not delivered:
        try:
            await run.aclose()  # type: ignore[attr-defined]
            await asyncio.sleep(0)  # the cancellation is still pending: take it here
        except asyncio.CancelledError:
            pass
    task.uncancel()
