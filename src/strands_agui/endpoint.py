"""FastAPI transport: one POST route that streams a :class:`StrandsAgent` run as AG-UI over SSE.

Everything HTTP is FastAPI's own machinery; this module only decides what to stream.

* **Framing.** The route is a generator *path operation* with ``response_class=EventSourceResponse``.
  It yields ``fastapi.sse.ServerSentEvent`` objects and FastAPI writes the frames: one
  ``data: <json>\\n\\n`` per AG-UI event (LF only, as ``@ag-ui/client`` requires), plus the
  ``Cache-Control: no-cache`` and ``X-Accel-Buffering: no`` headers. Each event is serialized once,
  here, with ``model_dump_json(by_alias=True, exclude_none=True)`` and passed as ``raw_data``.
  ``ag_ui.encoder.EventEncoder`` is not used: it builds frames by hand and produces only SSE.
* **Keep-alive.** FastAPI sends ``: ping`` after ``fastapi.sse._PING_INTERVAL`` idle seconds. That
  is one private module global (15 s, copied into ``fastapi.routing`` at import time), so it cannot
  be set per endpoint. Patching it would change every SSE route in the process. Instead the run is
  pumped by a task of its own (:class:`_RunPump`), and the path operation yields
  ``ServerSentEvent(comment="ping")`` whenever no event has arrived for ``keepalive_seconds``.
  That is FastAPI's public way to write a comment, and the bytes on the wire (``: ping\\n\\n``) are the
  same. Every frame restarts FastAPI's own timer, so FastAPI adds its own ping only when
  ``keepalive_seconds`` is above its 15 s.
* **Body limit.** FastAPI's per-route ``max_body_size`` (Starlette's ``RequestBodyLimitMiddleware``)
  answers 413 when ``Content-Length`` is over the limit, before reading anything. For a chunked
  body it counts bytes as it reads and answers 413 once the count passes the limit.
* **Validation before the stream.** Route dependencies run before the generator starts, in this
  order: the caller's ``dependencies`` (authentication), then the Content-Type check (415), then the
  Accept check (406). The RunAgentInput body is validated after them (FastAPI's 422, whose ``loc``
  names the field). Malformed JSON (422) and an oversized body (413) are rejected even earlier,
  while FastAPI reads the body. So a status code is always final before the first byte of the
  stream is sent.
* **Cancellation.** The run's generator is iterated, and closed, only inside its pump task (Strands
  keeps OpenTelemetry context in contextvars, so it must stay in one task). A request-scoped
  dependency owns the pump. Its teardown cancels the task and waits for it. So when a client
  disconnects, or the response ends in any other way, the Strands stream is closed and no task the
  request started is left behind. Under uvicorn (ASGI spec 2.3) Starlette watches for
  ``http.disconnect``, so a disconnect cancels the run at once, even in the middle of a silent tool
  call. A server that advertises spec 2.4 reports the disconnect at the next write instead, and the
  keep-alive bounds that delay to ``keepalive_seconds``.
* **Known noise.** A run that the endpoint stops early (ENCODING_ERROR) closes Strands'
  ``stream_async`` while it is suspended. Strands then leaves inner generators to the garbage
  collector, and OpenTelemetry logs "Failed to detach context". The core's own halt after a
  frontend tool call does the same. This comes from Strands and is harmless.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import Annotated, Any

import anyio
from ag_ui.core import BaseEvent, EventType, RunAgentInput, RunErrorEvent
from fastapi import Depends, FastAPI, HTTPException, Request, params
from fastapi.middleware.cors import CORSMiddleware
from fastapi.sse import EventSourceResponse, ServerSentEvent

from .agent import StrandsAgent

__all__ = [
    "SSE_MEDIA_TYPE",
    "accepts",
    "add_strands_fastapi_endpoint",
    "create_strands_app",
    "encode_event",
]

logger = logging.getLogger(__name__)

SSE_MEDIA_TYPE = "text/event-stream"
PRODUCED_MEDIA_TYPES: tuple[str, ...] = (SSE_MEDIA_TYPE,)
DEFAULT_MAX_BODY_BYTES = 1_048_576
DEFAULT_KEEPALIVE_SECONDS = 15.0
PING = ServerSentEvent(comment="ping")
_TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})

_ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    406: {"description": f"The Accept header allows none of: {', '.join(PRODUCED_MEDIA_TYPES)}."},
    413: {"description": "The request body is larger than the endpoint's limit."},
    415: {"description": "The request body is not JSON (Content-Type must be application/json)."},
}


# ----------------------------------------------------------------------------- content negotiation


def _media_ranges(accept: str) -> list[tuple[str, float]]:
    """``(media_range, q)`` for every well-formed element of an Accept header.

    The range is lower-cased with its parameters dropped. A missing q is 1. An unparsable q is also
    taken as 1 (read leniently), and q is clamped to [0, 1].
    """
    ranges: list[tuple[str, float]] = []
    for element in accept.split(","):
        media_range, *parameters = (part.strip() for part in element.split(";"))
        if media_range.count("/") != 1:
            continue
        q = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    q = 1.0
        ranges.append((media_range.lower(), q))
    return ranges


def _specificity(media_range: str, media_type: str) -> int | None:
    """How specifically ``media_range`` names ``media_type``. ``*/*`` is 0, ``type/*`` is 1 and
    ``type/subtype`` is 2. None means the range does not match the type."""
    if media_range == "*/*":
        return 0
    kind, subtype = media_range.split("/")
    wanted_kind, wanted_subtype = media_type.split("/")
    if kind != wanted_kind:
        return None
    if subtype == "*":
        return 1
    return 2 if subtype == wanted_subtype else None


def accepts(accept: str | None, media_type: str = SSE_MEDIA_TYPE) -> bool:
    """Whether an ``Accept`` header admits ``media_type``, following RFC 9110 section 12.5.1.

    The most specific matching range decides, and its q must be above 0. So
    ``text/event-stream;q=0, */*`` refuses SSE, and ``application/json, text/event-stream;q=0.5``
    admits it. A missing or blank header admits anything.
    """
    if accept is None or not accept.strip():
        return True
    best: tuple[int, float] | None = None
    for media_range, q in _media_ranges(accept):
        specificity = _specificity(media_range, media_type)
        if specificity is not None and (best is None or specificity > best[0]):
            best = (specificity, q)
    return best is not None and best[1] > 0


def _is_json(content_type: str | None) -> bool:
    """``application/json`` or ``application/*+json``, with any parameters."""
    media_type = (content_type or "").split(";")[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


async def require_json_body(request: Request) -> None:
    """415 unless the request declares a JSON body. FastAPI reads a body of any other type as raw
    bytes, which would otherwise fail validation with a misleading 422."""
    content_type = request.headers.get("content-type")
    if not _is_json(content_type):
        raise HTTPException(
            status_code=415,
            detail=f"Content-Type must be application/json (got {content_type!r}).",
        )


async def require_event_stream(request: Request) -> None:
    """406 unless the Accept header admits something this endpoint produces. The detail names what
    it can produce."""
    accept = ", ".join(request.headers.getlist("accept")) or None  # repeated headers form one list
    if not any(accepts(accept, media_type) for media_type in PRODUCED_MEDIA_TYPES):
        raise HTTPException(
            status_code=406,
            detail=f"Not acceptable: {accept!r}. This endpoint produces {', '.join(PRODUCED_MEDIA_TYPES)}.",
        )


# ----------------------------------------------------------------------------- streaming


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


# ----------------------------------------------------------------------------- public API


def _check_settings(max_body_bytes: int, keepalive_seconds: float) -> None:
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 0:
        raise ValueError(f"max_body_bytes must be a non-negative int, not {max_body_bytes!r}")
    if not keepalive_seconds > 0:
        raise ValueError(f"keepalive_seconds must be positive, not {keepalive_seconds!r}")


def add_strands_fastapi_endpoint(
    app: FastAPI,
    agent: StrandsAgent,
    path: str = "/",
    *,
    dependencies: Sequence[params.Depends] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    keepalive_seconds: float = DEFAULT_KEEPALIVE_SECONDS,
    name: str | None = None,
) -> None:
    """Register ``POST path``: a RunAgentInput body in, the run's AG-UI events out as SSE.

    ``dependencies`` (e.g. ``[Depends(verify_token)]``) run first. A request they refuse, or one
    answered 406, 413, 415 or 422, never starts a run. A started run streams with status 200 and
    ends with one RUN_FINISHED or RUN_ERROR, unless the client leaves first, which cancels it.
    ``keepalive_seconds`` is the longest silence before a ``: ping`` comment.
    """
    _check_settings(max_body_bytes, keepalive_seconds)

    async def run_agent(
        input_data: RunAgentInput, pump: Annotated[_RunPump, Depends(_run_pump)]
    ) -> AsyncIterator[ServerSentEvent]:
        """The run's SSE frames; FastAPI writes them. Runs only once every dependency has passed."""
        async with aclosing(pump.frames(agent.run(input_data), keepalive_seconds)) as frames:
            async for frame in frames:
                yield frame

    app.add_api_route(
        path,
        run_agent,
        methods=["POST"],
        response_class=EventSourceResponse,
        dependencies=[*(dependencies or ()), Depends(require_json_body), Depends(require_event_stream)],
        max_body_size=max_body_bytes,
        name=name or agent.name,
        summary=f"Run {agent.name}",
        description=agent.description or "Run the agent; AG-UI events stream back as SSE.",
        responses=_ERROR_RESPONSES,
    )


def create_strands_app(
    agent: StrandsAgent,
    path: str = "/",
    *,
    cors_origins: Sequence[str] = (),
    dependencies: Sequence[params.Depends] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    keepalive_seconds: float = DEFAULT_KEEPALIVE_SECONDS,
    health_path: str | None = "/ping",
) -> FastAPI:
    """A FastAPI app that serves ``agent`` at ``POST path``, with ``GET health_path`` returning
    ``{"status": "ok"}`` (unauthenticated; pass None for no health route).

    CORS is off unless ``cors_origins`` is given. Then exactly those origins may call the app (GET and
    POST, any request header, no credentials). There is never a wildcard origin.
    """
    app = FastAPI(title=agent.name, description=agent.description)
    if cors_origins:
        if "*" in cors_origins:
            raise ValueError("cors_origins must list origins; the '*' wildcard is not allowed")
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    if health_path is not None:
        app.add_api_route(health_path, _health, methods=["GET"], name="health")
    add_strands_fastapi_endpoint(
        app, agent, path, dependencies=dependencies, max_body_bytes=max_body_bytes,
        keepalive_seconds=keepalive_seconds,
    )
    return app


async def _health() -> dict[str, str]:
    """Liveness: the process is up and serving."""
    return {"status": "ok"}
