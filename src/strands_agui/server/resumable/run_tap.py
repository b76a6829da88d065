"""One resumable run as it is served (:class:`RunTap`): each event numbered and stored before it is sent, framed
with its id (``id: <runId>:<n>`` in SSE; counted in protobuf), the log ended with a terminal event on every path
(``RUN_ABANDONED`` when no reader came back within ``detach`` seconds). ``run_routes.py`` opens one per run
(``Resumable.start``) and frames a reconnect's stored events the same way (:func:`stored_frame`)."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import BaseEvent, RunErrorEvent
from fastapi.sse import format_sse_event

from ..transport.driver import finish
from ..transport.frames import TERMINAL, Encode
from ..transport.proto import length_prefixed
from ..transport.streaming import COALESCE_SECONDS, PROTO, Framing, Observer, RunStream, encode_event
from .event_store import HEARTBEAT_SECONDS, RunLog, Stored

logger = logging.getLogger(__name__)


def event_id(run_id: str, seq: int) -> str:
    return f"{run_id}:{seq}"


def stored_frame(framing: Framing, run_id: str, item: Stored) -> bytes:
    """The frame of a stored event, with its id (SSE) or without (protobuf: ids are counted)."""
    return id_frame(framing, run_id, item.seq, item.data)


def id_frame(framing: Framing, run_id: str, seq: int, data: str) -> bytes:
    """The frame of event ``seq`` of the run, its JSON ``data``: ``fastapi.sse.format_sse_event``'s bytes (SSE), built
    in one step when ``data`` is one line (an event's JSON always is: it escapes line breaks)."""
    if framing is PROTO:
        from ..transport.proto.codec import (
            encode as proto_encode,  # protobuf is optional: PROTO is offered only with it
        )

        return length_prefixed(proto_encode(json.loads(data)))
    if "\n" in data or "\r" in data:
        return format_sse_event(data_str=data, id=event_id(run_id, seq))  # a line each
    return f"data: {data}\nid: {run_id}:{seq}\n\n".encode()



class RunTap:
    """One resumable run as it is served: numbers and stores its events, frames them with their ids."""

    def __init__(self, run_id: str, log: RunLog, cancel: threading.Event, detach: float) -> None:
        self.run_id, self.log, self.cancel, self.detach = run_id, log, cancel, detach
        self.seq = 0
        self.current: tuple[BaseEvent, str] | None = None  # the event just yielded and its JSON
        self.rewrite: Callable[[BaseEvent], BaseEvent] = lambda event: event
        self.observation: Observer | None = None  # stamps RUN_STARTED before it is stored (tracing on)

    async def events(self, run: AsyncIterator[BaseEvent]) -> AsyncIterator[BaseEvent]:
        """The run's events, each stored before it is yielded; a terminal one always ends the log."""
        ended = cut_short = False
        try:
            while not ended:
                event = await self._next(run)
                if event is None:
                    event = RunErrorEvent(message="the run stopped without RUN_FINISHED or RUN_ERROR",
                                          code="ADAPTER_ERROR")
                stored, data = self._stored(event)
                ended, cut_short = stored.type in TERMINAL, stored is not event and event.type not in TERMINAL
                yield stored
        finally:
            if cut_short:  # ENCODING_ERROR: the run is still inside Strands; closed, it stops Strands first
                await run.aclose()  # type: ignore[attr-defined]
            elif ended:
                await finish(run)
            if not ended:
                self.log.append(RunErrorEvent(code="RUN_ABANDONED", message=(
                    f"the client left and none reconnected within {self.detach:g} s: the run was cancelled"
                )).model_dump_json(by_alias=True, exclude_none=True), "RUN_ERROR")
            await run.aclose()  # type: ignore[attr-defined]
            await self.log.close()

    async def _next(self, run: AsyncIterator[BaseEvent]) -> BaseEvent | None:
        try:
            return await anext(run)
        except StopAsyncIteration:
            return None
        except Exception as exc:  # noqa: BLE001 - mid-stream nothing may escape as a 500
            logger.exception("StrandsAgent.run failed")
            return RunErrorEvent(message=f"{type(exc).__name__}: {exc}", code="ADAPTER_ERROR")

    def _stored(self, event: BaseEvent) -> tuple[BaseEvent, str]:
        """Store ``event`` as it is (1.0: each reader gets it rewritten for its own generation) and keep the
        JSON this run's own client gets (the same text unless ``rewrite`` changes the event)."""
        try:
            if self.observation is not None:
                self.observation.stamp(event)  # RUN_STARTED with the run's trace ids, stored so (tracing on)
            data = encode_event(event)
            shown = self.rewrite(event)
            sent = data if shown is event else encode_event(shown)
        except Exception as exc:  # noqa: BLE001 - reported to the client as RUN_ERROR
            kind = getattr(event.type, "value", event.type)
            event = RunErrorEvent(message=f"A {kind} event could not be serialized: {exc}", code="ENCODING_ERROR")
            data = sent = encode_event(event)
        self.seq = self.log.append(data, event.type.value)
        self.current = (event, sent)
        return event, sent

    def stream(self, run: AsyncIterator[BaseEvent], framing: Framing, rewrite: Callable[[BaseEvent], BaseEvent],
               **settings: Any) -> RunStream:
        """The run's response: its events stored, then framed with their ids as ``rewrite`` makes them for the
        client's AG-UI generation (``server/transport/versions.py``), outliving the reader (``linger``)."""
        self.rewrite = rewrite
        self.observation = settings.get("observation")
        # each write of the driver flushes the log first, and it writes within its window (the keep-alive's at most)
        self.log.written_every(min(settings.get("coalesce", COALESCE_SECONDS), settings.get("keepalive", 15.0)))
        return RunStream(self.events(run), framing=framing, encode=self.encoder(framing), linger=self.linger,
                         before_write=self.log.flush, **settings)

    def encoder(self, framing: Framing) -> Encode:
        """The run's one encoding step: the frame of the event just stored, with its id."""
        def encode(event: BaseEvent) -> bytes:
            current = self.current
            if current is None or current[0] is not event:
                return framing.frame(event)  # not stored (cannot happen: every event passes through events())
            return id_frame(framing, self.run_id, self.seq, current[1])
        return encode

    async def linger(self) -> str:
        """Wait, once the reader left, until no reader followed the run for ``detach`` seconds."""
        self.log.written_every(None)  # no write flushes the log now: its own batches store it
        loop = asyncio.get_running_loop()
        quiet_since = loop.time()
        while True:
            await asyncio.sleep(min(self.detach, HEARTBEAT_SECONDS))
            now = loop.time()
            if self.log.reader_attached(2 * HEARTBEAT_SECONDS):
                quiet_since = now
            elif now - quiet_since >= self.detach:
                return f"no reader came back within {self.detach:g} s"
