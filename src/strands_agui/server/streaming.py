"""The streaming path: AG-UI events of one run -> SSE frames, with keep-alive, encoding errors as RUN_ERROR,
and the run's cancellation when the response ends. See ``endpoint``'s docstring for the design."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing

import anyio
from ag_ui.core import BaseEvent, EventType, RunErrorEvent
from fastapi.sse import ServerSentEvent

logger = logging.getLogger(__name__)

PING = ServerSentEvent(comment="ping")
_TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})


def encode_event(event: BaseEvent) -> str:
    """The wire JSON of one AG-UI event: camelCase, no ``null`` fields, never a raw newline.

    Raises whatever pydantic raises for a value it cannot serialize.
    """
    return event.model_dump_json(by_alias=True, exclude_none=True)


def _error_frame(code: str, message: str) -> ServerSentEvent:
    """A RUN_ERROR frame. Its fields are plain strings, so it always serializes."""
    return ServerSentEvent(raw_data=encode_event(RunErrorEvent(message=message, code=code)))


class _RunPump:
    """Iterates one run's events in a task of its own and passes their SSE frames through a queue.

    Invariants:
    * A request has at most one pump task.
    * The run's generator is iterated only inside that task, and closed there too (``aclosing``).
    * The queue receives the run's frames up to and including its one terminal event (RUN_FINISHED or
      RUN_ERROR), then ``None``. An event that fails to serialize becomes RUN_ERROR ``ENCODING_ERROR``
      and ends the run. A run that raises, or stops without a terminal event, gets a RUN_ERROR
      ``ADAPTER_ERROR``.
    * Once :meth:`close` returns, the task has finished and the generator is closed.

    The queue is unbounded. The run goes at its own pace, whatever the client's reading speed, and
    its output (finite) waits in memory. So when the request is cancelled, the pump is almost always
    waiting inside Strands (the model or a tool). The cancellation is raised there and Strands unwinds
    its nested generators in this task. Closing a suspended ``stream_async`` with ``aclose()`` instead
    leaves inner generators to the garbage collector, and Strands then logs OpenTelemetry "Failed to
    detach context" errors.
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[ServerSentEvent | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def frames(
        self, events: AsyncIterator[BaseEvent], keepalive: float
    ) -> AsyncGenerator[ServerSentEvent, None]:
        """The run's frames, with PING after every ``keepalive`` seconds without a frame."""
        if self._task is not None:
            raise RuntimeError("a _RunPump streams one run only")
        self._task = asyncio.create_task(self._pump(events), name="strands-agui-run")
        try:
            while (frame := await self._next(keepalive)) is not None:
                yield frame
        finally:
            # Not awaited: this may run inside an already-cancelled scope. close() waits for the task.
            self._task.cancel()

    async def _next(self, keepalive: float) -> ServerSentEvent | None:
        """The next queued frame, or PING if none arrives in time. A timed-out wait leaves the queue
        unchanged (``Queue.get`` takes nothing when cancelled)."""
        with anyio.move_on_after(keepalive):
            return await self._queue.get()
        return PING

    async def _pump(self, events: AsyncIterator[BaseEvent]) -> None:
        """Queue one frame per event, up to and including the terminal one. Then queue ``None``."""
        ended = False
        failure = "the run stopped without RUN_FINISHED or RUN_ERROR"
        try:
            async with aclosing(events):  # type: ignore[type-var]
                async for event in events:
                    frame, ended = self._frame(event)
                    self._queue.put_nowait(frame)
                    if ended:
                        break
        except Exception as exc:  # noqa: BLE001 - mid-stream nothing may escape as a 500
            logger.exception("StrandsAgent.run failed")
            failure = f"{type(exc).__name__}: {exc}"
        if not ended:
            self._queue.put_nowait(_error_frame("ADAPTER_ERROR", failure))
        self._queue.put_nowait(None)

    @staticmethod
    def _frame(event: BaseEvent) -> tuple[ServerSentEvent, bool]:
        """The frame for ``event`` and whether it ends the run. An event that cannot be serialized
        becomes a RUN_ERROR ``ENCODING_ERROR`` frame, which ends the run."""
        try:
            return ServerSentEvent(raw_data=encode_event(event)), event.type in _TERMINAL
        except Exception as exc:  # noqa: BLE001 - reported to the client as RUN_ERROR
            kind = getattr(event.type, "value", event.type)
            logger.warning("could not serialize a %s event: %s", kind, exc)
            return _error_frame("ENCODING_ERROR", f"A {kind} event could not be serialized: {exc}"), True

    async def close(self) -> None:
        """Cancel the task if it is still running and wait for it to finish. The wait is shielded, so
        a cancelled request still cleans up."""
        task = self._task
        if task is None or task.done():
            return
        task.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait({task})


async def _run_pump() -> AsyncIterator[_RunPump]:
    """Request-scoped owner of the run's pump. The teardown runs after the response has ended, however
    it ended, and leaves no task behind."""
    pump = _RunPump()
    try:
        yield pump
    finally:
        await pump.close()
