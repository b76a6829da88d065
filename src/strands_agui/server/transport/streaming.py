"""The streaming path: one run's AG-UI events -> frames on the socket, in the request's own task.

:class:`RunStream` is a Starlette ``StreamingResponse``, a thin ASGI adapter over the transport-neutral
:class:`~strands_agui.server.transport.driver.RunDriver` (the run's phase, its cancellation and unwinding), which
iterates the run in the request's task. Per event it does the encoding (one :data:`Framing.frame` function:
``ag_ui.encoder.EventEncoder`` for SSE, the AG-UI protobuf framing for ``proto``) and one ASGI ``send``: no
queue, no producer task, no timer per frame. One helper task per request, the *watcher*, waits on ASGI
``receive`` for the client's disconnect and wakes once per keep-alive period.

Invariants:

* **One task iterates and closes the run** (the request's). Strands keeps OpenTelemetry context in
  contextvars: a run iterated in one task and closed in another, or closed with ``aclose()`` while Strands is
  suspended at a ``yield``, leaves inner generators to the garbage collector and logs "Failed to detach
  context". So the run is stopped by cancelling the request task, which raises ``CancelledError`` where
  Strands awaits (the model, a tool) and Strands unwinds its own generators. The run loop itself never closes
  Strands at a ``yield`` either: a halt, or a failure of the adapter's own code while Strands is still running,
  cancels Strands its own way and reads it to its end (``runtime/adapter.translate``). When the cancellation instead
  lands outside the run (the driver's phase was not ``waiting``: it was writing or forwarding),
  :func:`~strands_agui.server.transport.driver.unwind` resumes the run with a cancellation pending, so it still ends at
  Strands' next await. A run cut short by an event that cannot be encoded (ENCODING_ERROR) is closed
  (``aclose``) in the same task, and the close reaches ``runtime.loop.translate`` at its own ``yield``
  (every level of the run closes the one below it, ``aclosing``), which stops Strands its own way and reads
  it to its end before closing it: so even inside a streaming tool Strands is never closed at a ``yield``.
* **Disconnect.** Under uvicorn (ASGI spec 2.3) ``receive`` returns ``http.disconnect`` as soon as the
  client leaves; the watcher then cancels the run at once, even in the middle of a silent tool call.
* **Keep-alive** (SSE only: the protobuf framing has no frame a client skips, so it sends none). The stream
  records the loop time of each frame it writes (no timer). The watcher sleeps until ``keepalive`` seconds
  after the last frame and, if nothing was written since, sends ``fastapi.sse.KEEPALIVE_COMMENT``
  (``: ping``). Frames and pings never interleave mid-frame (one lock, never contended on the hot path).
* **Back-pressure.** ``send`` suspends while the transport's write buffer is above its high-water mark
  (uvicorn's flow control), and the run is not iterated meanwhile: a slow reader holds at most that buffer
  plus one frame. A frame still unsent ``stall`` (twice ``keepalive``) seconds after it was handed over means
  the reader has stopped: the run is cancelled (a resumable run detaches instead, see ``driver``).
* **Coalescing.** A frame is written at once when no frame was written in the last ``coalesce`` seconds
  (so the first, RUN_STARTED, always is) and the loop is not busy (``Pacer.loop_busy``: on a busy loop that gap
  is the loop's lag, not the run's silence, and writing each such frame alone is what made a process past its
  saturation fall further behind), and so is the terminal frame; any other frame waits, at most
  ``coalesce`` seconds, to go out in one ``send`` with the frames that follow it. A run producing frames
  faster than one per ``coalesce`` (a fast model, a busy server) costs one write per ``coalesce``, not one
  per event; a slower one is written frame by frame. Frames still waiting ``coalesce`` seconds after the
  oldest of them was queued are written by the watcher, woken by one timer per waiting batch (cancelled when
  the run writes them first); the watcher's own wake-up (keep-alive, stall) is never moved per write: it
  recomputes its deadline when it wakes. ``coalesce=0`` writes every frame at once.
* **Fairness.** One :class:`~strands_agui.server.transport.pacing.Pacer` per request, called after each AG-UI event (by
  the driver) and after each Strands event that produced none (the endpoint runs the agent with ``pace=`` the
  same pacer), returns a loop turn: on a quiet loop once the run has held it for a slice
  (``pacing.SLICE_SECONDS``, 2 ms) since it last waited, so a run at a model's pace never pays a turn of its
  own; on a busy loop (it took ``pacing.BUSY_SECONDS`` or more to come back to the run) after every second
  event, so each loop turn is short and a new request's first step, which writes RUN_STARTED, waits behind
  less; unless admission control is shedding load on the loop (``pacing.LoopState.shedding``): then once per
  slice, since past saturation each turn's CPU is the admitted runs'. Both are known exactly, from one
  ``call_soon`` callback per wait (``docs/benchmarks.md``). A new request's pacer starts from its loop's latest
  measurement (``pacing.BUSY``), so on a busy loop RUN_STARTED's step gives
  the loop a turn before the run's agent is built.
* **Ends.** The frames end after the run's one terminal event (RUN_FINISHED or RUN_ERROR). An event that
  fails to encode becomes RUN_ERROR ``ENCODING_ERROR`` and ends the run; a run that raises, or stops
  without a terminal event, gets a RUN_ERROR ``ADAPTER_ERROR``. When ``__call__`` returns, the run is
  closed and the watcher has finished.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from ag_ui.core import BaseEvent, ReasoningMessageContentEvent, TextMessageContentEvent, ToolCallArgsEvent
from ag_ui.encoder import EventEncoder
from fastapi.sse import KEEPALIVE_COMMENT
from pydantic_core import to_json
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from .driver import RunDriver
from .frames import Encode
from .inflight import Held
from .pacing import Pacer
from .proto import PROTO_MEDIA_TYPE, proto_frame

__all__ = ["COALESCE_SECONDS", "DELTAS", "FRAMINGS", "PROTO", "SSE", "Framing", "Observer", "RunStream",
           "delta_json", "encode_event", "sse_frame"]

COALESCE_SECONDS = 0.05  # default longest wait of a frame for the frames that follow it (see Coalescing)
_ENCODER = EventEncoder()


DELTAS: dict[type[BaseEvent], tuple[str, str, str]] = {
    TextMessageContentEvent: ("TEXT_MESSAGE_CONTENT", "message_id", "messageId"),
    ReasoningMessageContentEvent: ("REASONING_MESSAGE_CONTENT", "message_id", "messageId"),
    ToolCallArgsEvent: ("TOOL_CALL_ARGS", "tool_call_id", "toolCallId"),
}
"""The delta events, most of a stream's events: class -> (type, id field, its wire name)."""


def delta_json(event: BaseEvent) -> bytes | None:
    """The wire JSON of a bare delta event (one of :data:`DELTAS` with its id, its delta and at most a
    ``subagentRunId``), byte for byte what the event's own serializer writes, built by ``pydantic_core``
    without the Python-level ``model_serializer`` that ``ag_ui``'s base model runs on every dump (about 1 µs
    instead of 11); None for any other event, which takes the model's own path (``tests/server/test_delta_json.py``
    holds the two paths equal)."""
    shape = DELTAS.get(type(event))
    if shape is None:
        return None
    fields = event.__dict__
    if (fields["timestamp"] is not None or fields["raw_event"] is not None or fields["metadata"] is not None
            or event.__pydantic_extra__):
        return None
    kind, name, alias = shape
    if fields["subagent_run_id"] is None:
        return to_json({"type": kind, alias: fields[name], "delta": fields["delta"]})
    return to_json({"type": kind, "subagentRunId": fields["subagent_run_id"], alias: fields[name],
                    "delta": fields["delta"]})


def encode_event(event: BaseEvent) -> str:
    """The wire JSON of one AG-UI event: camelCase, no ``null`` fields, never a raw newline.

    Raises whatever pydantic raises for a value it cannot serialize.
    """
    data = delta_json(event)
    return data.decode() if data is not None else event.model_dump_json(by_alias=True, exclude_none=True)


def sse_frame(event: BaseEvent) -> bytes:
    """One SSE frame, ``data: <json>\\n\\n``, framed by ``ag_ui``'s own encoder (a bare delta event: the same
    frame around :func:`delta_json`)."""
    data = delta_json(event)
    return _ENCODER.encode(event).encode() if data is None else b"data: " + data + b"\n\n"


@dataclass(frozen=True)
class Framing:
    """How a run goes on the wire: its media type, how one event becomes bytes, its keep-alive frame."""

    media_type: str
    frame: Encode
    keepalive: bytes | None


SSE = Framing("text/event-stream", sse_frame, KEEPALIVE_COMMENT)
PROTO = Framing(PROTO_MEDIA_TYPE, proto_frame, None)
"""The AG-UI protobuf framing (``server/transport/proto``). It has no frame a client skips, so an idle proto stream
sends no keep-alive bytes: behind a proxy with an idle timeout, a long silent tool call needs SSE."""
FRAMINGS = {framing.media_type: framing for framing in (SSE, PROTO)}


class Observer(Protocol):
    """What watches one served run from the transport (``server/observability/observation.Observation``):
    each encoded event, and the whole response. The transport knows it only by this shape, so it imports
    nothing above it."""

    def stamp(self, event: Any) -> None: ...

    def encoder(self, encode: Encode) -> Encode: ...

    def observing(self, driver: RunDriver) -> AbstractContextManager[None]: ...


class RunStream(StreamingResponse):
    """Stream one run's events with ``framing``; see the module docstring for the invariants.

    ``encode`` replaces ``framing.frame`` (a resumable run's frames carry ids); ``linger`` makes the run
    outlive its reader (see :class:`~strands_agui.server.transport.driver.RunDriver`); ``before_write`` is awaited
    before each write (a resumable run's store, ``server/resumable/run_routes.py``); ``observation``
    (``server/observability``)
    sees every encoded event and spans the whole response (its span current while the run is iterated); ``pace``
    is the run's :class:`~strands_agui.server.transport.pacing.Pacer` (the endpoint shares one with the run; else the
    driver makes its own)."""

    media_type = SSE.media_type  # what OpenAPI documents for the route
    held: Held | None = None  # the run's place in ``IN_FLIGHT`` taken at its admission (``request/admission.py``)

    def __init__(self, events: AsyncIterator[Any], *, framing: Framing = SSE, keepalive: float = 15.0,
                 coalesce: float = COALESCE_SECONDS, encode: Encode | None = None,
                 linger: Callable[[], Awaitable[str]] | None = None,
                 before_write: Callable[[], Awaitable[None]] | None = None,
                 observation: Observer | None = None, pace: Pacer | None = None) -> None:
        self.status_code = 200
        self.media_type = framing.media_type
        self.background = None
        self.init_headers({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self.events = events
        self.framing = framing
        self.encode = encode or framing.frame
        self.keepalive = keepalive
        self.coalesce = coalesce
        self.linger = linger
        self.before_write = before_write
        self.observation = observation
        self.pace = pace

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        observation = self.observation
        encode = self.encode if observation is None else observation.encoder(self.encode)
        sink = AsgiSink(receive, send, self.before_write)
        driver = RunDriver(self.events, encode, sink, keepalive=self.keepalive,
                           coalesce=self.coalesce, keepalive_frame=self.framing.keepalive, linger=self.linger,
                           pace=self.pace, held=self.held)
        try:
            with nullcontext() if observation is None else observation.observing(driver):
                await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
                await driver.drive()
        finally:
            if self.held is not None:  # given back whatever happened before the driver took it
                self.held.leave()


class AsgiSink:
    """The driver's :class:`~strands_agui.server.transport.driver.Sink` on an ASGI response that has started."""

    def __init__(self, receive: Receive, send: Send, before_write: Callable[[], Awaitable[None]] | None = None) -> None:
        self.receive, self.send, self.before_write = receive, send, before_write

    async def write(self, body: bytes) -> None:
        if self.before_write is not None:
            await self.before_write()  # a resumable run's events are stored before the reader holds their ids
        await self.send({"type": "http.response.body", "body": body, "more_body": True})

    async def gone(self) -> None:
        while (await self.receive())["type"] != "http.disconnect":
            pass

    async def end(self) -> None:
        await self.send({"type": "http.response.body", "body": b"", "more_body": False})
