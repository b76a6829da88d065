"""One served run, apart from its transport: iterate the run, write its frames, stop it, unwind it.

:class:`RunDriver` knows nothing of ASGI. A transport gives it a :class:`Sink` (``write`` a body, wait until
the reader is ``gone``, ``end`` the response) and one ``encode`` function (an AG-UI event -> the bytes of
its frame: SSE, the protobuf framing, either with the ids of a resumable run). ``streaming.RunStream``
(the ASGI response) is a thin adapter over it; the invariants it keeps are in ``streaming``'s docstring.

The phase of a served run is explicit (:class:`Phase`), and every change of phase is a move of the driver's
table (:data:`PHASES`, a ``core.machine.Table`` like the run's own; ``docs/transport.md`` says what each means):
``waiting`` (inside the run: a cancellation lands where Strands awaits, and Strands unwinds its own generators),
``forwarding`` (an event in hand), ``writing`` (the driver's own write; a stall is measured from here),
``stopped`` (by the watcher; :attr:`RunDriver.stopped_in`, the phase it was stopped in, decides how it unwinds:
inside the run, nothing to do; elsewhere, :func:`unwind`) and ``ended`` (every frame is out).

Whether a reader is attached is apart from the phase: a resumable run whose reader left or stalled is
*detached* (:attr:`RunDriver.detached_at`): it goes on through the same phases, writing to its event store only
(the ``encode`` step stores each frame), until ``linger`` returns (no reader came back in time), which stops it.
A write stuck on a stalled reader is cancelled and the run's task takes that cancellation back. Without
``linger`` a reader that leaves or stalls stops the run at once.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from ag_ui.core import RunErrorEvent

from ...core.machine import Table, sources
from ...runtime.loop import unwind as unwind_run
from .frames import TERMINAL, Encode, OpenCalls, encode_or_error
from .inflight import Held
from .pacing import Pacer

# the served runs' one logger, as before the driver
logger = logging.getLogger("strands_agui.server.transport.streaming")

NEVER = float("-inf")  # the loop time of a write that has not happened
MAX_WRITE_BYTES = 65_536  # one write's largest body: a stall is a write that makes no progress for ``stall``
# seconds, so a replay's stored events (which come at once) must not coalesce into one huge write



class Phase(enum.Enum):
    """Where a served run is; see the module docstring."""

    STARTED = "started"
    WAITING = "waiting"
    FORWARDING = "forwarding"
    WRITING = "writing"
    STOPPED = "stopped"
    ENDED = "ended"

    __hash__ = object.__hash__  # a member is its own key in the table: no Python-level Enum.__hash__ per move


_RUNNING = [Phase.STARTED, Phase.WAITING, Phase.FORWARDING, Phase.WRITING]
PHASES: tuple[dict[str, Any], ...] = (
    {"trigger": "wait", "source": [Phase.STARTED, Phase.FORWARDING], "dest": Phase.WAITING},
    {"trigger": "forward", "source": [Phase.WAITING, Phase.WRITING], "dest": Phase.FORWARDING},
    # waiting -> writing: the RUN_ERROR of a run that raised or stopped without a terminal event
    {"trigger": "write", "source": [Phase.WAITING, Phase.FORWARDING], "dest": Phase.WRITING},
    {"trigger": "end", "source": Phase.FORWARDING, "dest": Phase.ENDED},  # after the terminal frame
    {"trigger": "stop", "source": _RUNNING, "dest": Phase.STOPPED},  # the watcher's: the reader left or stalled
    # a stop stands: the run's task moves on until it takes the cancellation (its next await), changing nothing
    *({"trigger": trigger, "source": Phase.STOPPED, "dest": None} for trigger in ("wait", "forward", "write", "end")),
)
DRIVER = Table("served run", Phase, PHASES, Phase.STARTED)  # drawn into diagrams/served_run.* (make diagrams)
MOVES: dict[Phase, frozenset[Phase]] = {phase: frozenset(  # phase -> the phases it may move to (from the table)
    row["dest"] for row in PHASES if row["dest"] is not None and phase in sources(row)) for phase in Phase}


class Sink(Protocol):
    """What a transport gives the driver."""

    async def write(self, body: bytes) -> None:
        """Hand ``body`` (whole frames) to the reader; may suspend under back-pressure."""

    async def gone(self) -> None:
        """Return once the reader has left (cancelled and called again while it stays)."""

    async def end(self) -> None:
        """End the response after the last frame."""


class RunDriver:
    """Drive one run to a sink; see ``streaming`` for the invariants it keeps."""

    def __init__(self, events: AsyncIterator[Any], encode: Encode, sink: Sink, *, keepalive: float,
                 coalesce: float, keepalive_frame: bytes | None,
                 linger: Callable[[], Awaitable[str]] | None = None, pace: Pacer | None = None,
                 held: Held | None = None) -> None:
        self.events, self.encode, self.sink = events, encode, sink
        self.held = held  # the run's place in ``IN_FLIGHT`` when admission control took it already
        self.pace = pace or Pacer()  # the run's fairness (the endpoint hands the same pacer to the run)
        self.keepalive, self.stall = keepalive, 2 * keepalive
        self.coalesce = min(coalesce, keepalive)
        self.keepalive_frame = keepalive_frame
        self.linger = linger  # a resumable run's wait for a reader to come back: returns why it stops
        self.detached_at: float | None = None  # loop time the reader left (a resumable run goes on)
        self.machine = DRIVER.bind(self)
        self.stopped_in: Phase | None = None  # the phase the watcher stopped the run in
        self.reason: str | None = None  # why it was stopped
        self._lock = asyncio.Lock()
        self._last = 0.0  # loop time the last frame was handed to ``write``
        self._pending: list[bytes] = []  # encoded frames not yet handed to ``write``
        self._pending_bytes = 0  # their size: a write never waits for more than MAX_WRITE_BYTES
        self._pending_since = 0.0  # loop time the oldest of them was queued
        self._flushed = NEVER  # loop time of the last write of frames
        self._timer: asyncio.Timeout | None = None  # the watcher's current wake-up
        self._due: asyncio.TimerHandle | None = None  # wakes the watcher when the oldest pending frame is due
        self.cut_short = False  # the run ended on a frame of ours (ENCODING_ERROR): it is still inside Strands
        self.calls = OpenCalls()  # the tool calls on the wire not ended yet (closed when the run is cut short)

    @property
    def phase(self) -> Phase:
        return self.machine.state  # type: ignore[no-any-return]

    def fire(self, trigger: str) -> None:
        """Change phase, as the table (:data:`PHASES`) allows; ``MachineError`` when it has no such move."""
        self.machine.fire(trigger)

    async def drive(self) -> bool:
        """Drive the run; True when its frames all went out and the response was ended, False when the
        watcher stopped it (the response is abandoned)."""
        loop = asyncio.get_running_loop()
        self._last = loop.time()
        host = asyncio.current_task()
        assert host is not None
        watcher = loop.create_task(self._watch(host), name="strands-agui-watch")
        held = self.held or Held()
        try:
            finished = await self._stream()
            watcher.cancel()  # before the end of the response: the client may send its next request at once
            if finished and self.detached_at is None:
                async with self._lock:
                    await self.sink.end()
            return finished
        finally:
            held.leave()
            self._cancel_due()
            watcher.cancel()
            await asyncio.wait({watcher})

    async def _stream(self) -> bool:
        run = self.events
        try:
            await self._frames(run)
            if self.phase is Phase.STOPPED:  # stopped after its last await: the cancellation is taken here
                await asyncio.sleep(0)
            if self.cut_short:  # the run is still inside Strands: closed, it stops Strands its own way first
                await run.aclose()  # type: ignore[attr-defined]
            else:
                await finish(run)
            return True
        except asyncio.CancelledError:
            if self.phase is not Phase.STOPPED:
                raise  # not ours: the server is shutting down
            task = asyncio.current_task()
            assert task is not None
            task.uncancel()
            if self.stopped_in is not Phase.WAITING:
                await unwind(run)
            logger.debug("run stopped: %s", self.reason)
            return False
        finally:
            await run.aclose()  # type: ignore[attr-defined]

    async def _frames(self, run: AsyncIterator[Any]) -> None:
        loop = asyncio.get_running_loop()
        ended = False
        failure = "the run stopped without RUN_FINISHED or RUN_ERROR"
        try:
            while not ended:
                self.fire("wait")
                try:
                    event = await anext(run)
                except StopAsyncIteration:
                    break
                self.fire("forward")
                frame, ended = encode_or_error(self.encode, event)
                self.cut_short = ended and event.type not in TERMINAL
                if self.cut_short:  # the client's open tool calls get parseable arguments and their END first
                    frame = self.calls.closing(self.encode) + frame
                else:
                    self.calls.see(event)
                await self._queue(frame, ended, loop.time())
                if not ended and (turn := self.pace()) is not None:
                    await turn  # fairness: a run holds the loop for one slice at most
        except Exception as exc:  # noqa: BLE001 - mid-stream nothing may escape as a 500
            if self.phase is not Phase.WAITING:
                raise
            logger.exception("StrandsAgent.run failed")
            failure = f"{type(exc).__name__}: {exc}"
        if not ended:
            frame, _ = encode_or_error(self.encode, RunErrorEvent(message=failure, code="ADAPTER_ERROR"))
            await self._queue(frame, True, loop.time())
        self.fire("end")

    async def _queue(self, frame: bytes, ended: bool, now: float) -> None:
        """Queue ``frame``; write what is queued now when it ends the run or nothing was written for
        ``coalesce`` seconds, else let the watcher write it ``coalesce`` seconds after the oldest pending frame
        was queued, if the run has not written it by then (a frame that follows within that time writes it).
        On a busy loop (the pacers' latest measurement, ``Pacer.loop_busy``) a gap is the loop's lag, not the
        run's silence, so a frame after one waits like any other (the run's first frame excepted): else past its
        saturation a process writes every frame on its own, and each write's cost makes it fall further behind."""
        self._pending.append(frame)
        self._pending_bytes += len(frame)
        if ended or self._pending_bytes >= MAX_WRITE_BYTES or (
                now - self._flushed >= self.coalesce and not self._lagging()):
            await self._flush(now)
        elif len(self._pending) == 1:
            self._pending_since = now
            self._due = asyncio.get_running_loop().call_at(now + self.coalesce, self._coalesce_due)

    def _lagging(self) -> bool:
        """A gap of ``coalesce`` since the last write is the busy loop's lag, not the run's silence: the loop is
        busy, the run has written before (RUN_STARTED never waits) and frames coalesce at all (``coalesce=0``
        writes each at once)."""
        return self.pace.loop_busy and self._flushed != NEVER and self.coalesce > 0

    async def _flush(self, now: float) -> None:
        """Hand the pending frames to the sink as one body, from the run's task. The watcher's wake-up is left
        where it is: it recomputes its deadline when it wakes (moving it later on every write would cost a
        timer per write)."""
        self._last = self._flushed = now
        self._cancel_due()
        self.fire("write")
        async with self._lock:
            await self._write_pending()
        self.fire("forward")

    def _coalesce_due(self) -> None:
        """The oldest pending frame has waited ``coalesce``: wake the watcher to write it."""
        self._due = None
        if self._pending:
            self._wake_at(asyncio.get_running_loop().time())

    def _cancel_due(self) -> None:
        if self._due is not None:
            self._due.cancel()
            self._due = None

    async def _write_pending(self) -> None:
        if self._pending:
            body = b"".join(self._pending)
            self._pending.clear()
            self._pending_bytes = 0
            if self.detached_at is None:
                await self.sink.write(body)

    def _wake_at(self, when: float) -> None:
        """Move the watcher's next wake-up to ``when`` (it recomputes its deadline whenever it wakes)."""
        if self._timer is not None and self._timer.expired() is False:
            self._timer.reschedule(when)

    async def _watch(self, host: asyncio.Task[bool]) -> None:
        """Stop ``host`` when the reader leaves or stops reading (a resumable run: detach it, and stop it when
        ``linger`` returns); meanwhile write the frames that waited ``coalesce`` and the keep-alive frames."""
        loop = asyncio.get_running_loop()
        while self.detached_at is None:
            try:
                async with asyncio.timeout_at(self._next_wake()) as self._timer:
                    await self.sink.gone()
                left = True
            except TimeoutError:
                left = False
            self._timer = None
            if left and self.linger is None:
                return self._stop(host, "the client disconnected")
            if left:
                self._pending.clear()
                self._pending_bytes = 0
                self.detached_at = loop.time()
                logger.debug("the client disconnected: the run goes on, awaiting a reconnect")
            else:
                reason = await self._on_wake(loop.time())
                if reason is not None:
                    return self._stop(host, reason)
        assert self.linger is not None
        self._stop(host, await self.linger())

    def _next_wake(self) -> float:
        writing = self.phase is Phase.WRITING
        wake = self._last + (self.stall if writing else self.keepalive)
        if self._pending and not writing:
            return min(wake, self._pending_since + self.coalesce)
        return wake

    async def _on_wake(self, now: float) -> str | None:
        """The watcher's writes: pending frames that waited ``coalesce``, else a keep-alive frame after
        ``keepalive`` of silence. Returns why the run must stop (the reader stopped reading), or None."""
        stalled = f"the client read nothing for {self.stall:g} s"
        if self.phase is Phase.WRITING:
            return stalled if now - self._last >= self.stall else None
        if self._pending and now >= self._pending_since + self.coalesce:
            self._flushed = now
            self._cancel_due()
            write = self._write_pending
        elif now - self._last >= self.keepalive and self.keepalive_frame:
            write = self._write_keepalive
        else:
            return None
        self._last = now
        try:
            async with asyncio.timeout(self.stall), self._lock:
                await write()
        except TimeoutError:
            return stalled
        return None

    async def _write_keepalive(self) -> None:
        assert self.keepalive_frame is not None
        await self.sink.write(self.keepalive_frame)

    def _stop(self, host: asyncio.Task[bool], reason: str) -> None:
        if self.phase is Phase.ENDED or self.phase is Phase.STOPPED:
            return
        self.stopped_in, self.reason = self.phase, reason
        self.fire("stop")
        host.cancel()


async def finish(run: AsyncIterator[Any]) -> None:
    """Read a run whose last frame went out (its terminal event, or the RUN_ERROR that stands for one) to its end:
    one more step, in which every async generator inside it returns by itself. Closed at its last ``yield``
    instead, the run's nested generators would be left to the garbage collector, and asyncio's finalizer closes
    each such generator in a task of its own, woken through the loop's self-pipe."""
    try:
        extra = await anext(run)
    except StopAsyncIteration:
        return
    except Exception:  # noqa: BLE001 - the client has its terminal event; nothing to report to
        logger.debug("a run raised after its terminal event", exc_info=True)
        return
    logger.warning("a run yielded a %s event after its terminal event: dropped (the run is closed)",
                   getattr(getattr(extra, "type", None), "value", type(extra).__name__))


async def unwind(run: AsyncIterator[Any]) -> None:
    """End a run suspended at a ``yield`` (its consumer was cancelled while writing) at Strands' next await
    (``runtime.loop.unwind``); closed after ``UNWIND_LIMIT`` events if it never awaits."""
    await unwind_run(run, close=True)
