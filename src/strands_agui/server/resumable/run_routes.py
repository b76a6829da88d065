"""Resumable runs: event ids, the run's log in an event store, reconnect and cancel by id.

With ``resumable=True`` every event a run writes is first numbered (1, 2, ...) and appended to the endpoint's
event store (``server/resumable/event_store.py``), and a frame reaches the reader only once its event is stored (the
driver's
write awaits :meth:`RunLog.flush`), so a client never holds an id the store has not.

* **Ids.** An SSE frame carries ``id: <runId>:<n>`` (``fastapi.sse.format_sse_event``). The protobuf framing
  has no id field: frame *k* of a response is event ``after + k``, where ``after`` is the number in the
  request's ``Last-Event-ID`` (0 for the run's own POST and for a replay from the start).
* **Reconnect.** ``GET <path>/runs/{runId}/events`` streams the events after ``Last-Event-ID`` (all of them
  without the header), then follows the live run to its terminal event, on whichever worker answers.
* **Versions.** The log keeps the run's 1.0 events; each reader gets them as its own AG-UI generation does
  (``server/transport/versions.py``): the POST's client by its ``protocolVersion``, a reconnect by its
  ``protocolVersion``
  query parameter (none: the 0.0.x stream, as for a POST that declares none).
* **Detach.** A resumable run whose reader leaves (or stalls) goes on for ``detach_seconds`` waiting for a
  reader, then is cancelled as a run without ``resumable`` is at once; its log then ends with RUN_ERROR
  ``RUN_ABANDONED``. A run whose worker died ends, for a reader, with RUN_ERROR ``RUN_LOST`` (see
  ``docs/reliability.md``).
* **Cancel.** ``POST <path>/runs/{runId}/cancel`` sets the run's cancel flag on the worker running it; the
  run ends RUN_FINISHED ``outcome: cancelled`` (the ``cancel`` move of ``core/machine.py``). After its end, the
  route still cancels the run's background tasks that outlived it (``wait_for_completion=False``), when this
  worker holds them (``runtime/building/background_watch.py``): the thread's next run shows them ``cancelled``.
* **A thread's live run.** With server-side threads on, a run is named in the store as its thread's live run
  (:meth:`Resumable.on_thread`, the principal's thread only) with the messages it was sent from the last user
  message on; ``GET <path>/threads/{threadId}`` shows it as ``liveRun`` while it runs (``threads_api.py``), so
  a page reloaded mid-run, on any runtime or worker, attaches to it by id (``docs/threads.md``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from ag_ui.core import BaseEvent, RunAgentInput, RunErrorEvent
from ag_ui.core.events import Event
from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request, params
from fastapi.responses import JSONResponse, Response
from pydantic import TypeAdapter

from ...environment import ServeEnvironment
from ...runtime.building.background_watch import DETACHED
from ..request.negotiation import require_event_stream
from ..request.principals import principal_of
from ..request.validation import MAX_ID, check_id
from ..transport.streaming import FRAMINGS, Framing, RunStream, encode_event
from ..transport.versions import rewrite_for
from .event_store import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_LIVE_RUNS_PER_PRINCIPAL,
    EventStore,
    MemoryEvents,
    RunExists,
    RunLimit,
    Stored,
    StoreUnavailable,
)
from .redis_store import RedisEvents
from .run_tap import RunTap, stored_frame

logger = logging.getLogger(__name__)

DEFAULT_DETACH_SECONDS = 60.0
MAX_RUN_ID = MAX_ID  # longest run id the run routes accept
MAX_LAST_EVENT_ID = MAX_RUN_ID + 24
MAX_PROTOCOL_VERSION = 40  # longest ``protocolVersion`` a reconnect may declare
_EVENT: TypeAdapter[Any] = TypeAdapter(Event)  # a stored event's JSON -> its model (a reconnect's rewrite)


def run_key(run_id: str, principal: str | None) -> str:
    """The run's key in the event store: the run id scoped by its principal, so that another principal
    sending the same ``runId`` starts a run of its own (no 409 telling it the id is taken)."""
    if principal is None:
        return f"a/{run_id}"
    return f"u-{hashlib.sha256(principal.encode()).hexdigest()[:32]}/{run_id}"


def thread_key(thread_id: str, principal: str | None) -> str:
    """A thread's key in the event store (its live run), scoped by the principal as a run's is."""
    return f"thread:{run_key(thread_id, principal)}"


LIVE_MESSAGES_BYTES = 64 * 1024  # the most JSON of a live run's new messages the store keeps for the thread API


def live_messages(input_data: RunAgentInput) -> list[dict[str, Any]]:
    """What a run was sent from its last user message on (its new messages, and some the thread may hold
    already): none when they hold more than ``LIVE_MESSAGES_BYTES`` of JSON."""
    messages = input_data.messages
    start = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), 0)
    out = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages[start:]]
    return out if len(json.dumps(out)) <= LIVE_MESSAGES_BYTES else []


class Resumable:
    """An endpoint's resumable runs: its event store and how long a run outlives its reader."""

    def __init__(self, store: EventStore | None = None, detach_seconds: float = DEFAULT_DETACH_SECONDS) -> None:
        if not 0 <= detach_seconds < float("inf"):
            raise ValueError(f"detach_seconds must be a finite number >= 0, not {detach_seconds!r}")
        self.store: EventStore = store if store is not None else MemoryEvents()
        self.detach = detach_seconds

    async def start(self, input_data: RunAgentInput, principal: str | None) -> RunTap:
        """Open the run's log: 409 when ``principal`` used the run id already (another principal's run of the
        same id is another run), 429 ``RUN_LIMIT`` past the store's live-run limits, 503 when the store is down."""
        run_id = check_run_id(input_data.run_id)
        cancel = threading.Event()
        try:
            log = await self.store.open(run_key(run_id, principal), principal, cancel.set)
        except RunExists:
            raise HTTPException(409, f"run {run_id!r} was already started; a new run needs a new runId") from None
        except RunLimit as exc:
            raise run_limit(exc) from None
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        return RunTap(run_id, log, cancel, self.detach)

    def store_busy(self) -> str | None:
        """Why a new run's events could not be stored now (its store's connections are all taken: a run accepted
        then would lose its events), None when they can; asked by admission control before the run's body is read."""
        busy = getattr(self.store, "busy", None)
        return busy() if callable(busy) else None

    async def on_thread(self, input_data: RunAgentInput, principal: str | None) -> None:
        """Name the run (started) as its thread's live run, with its new messages (``live_messages``) and when it
        started; a store that fails is logged (the run goes on; the thread API then names no live run)."""
        entry = {"runId": input_data.run_id, "started": time.time(), "messages": live_messages(input_data)}
        try:
            await self.store.mark_thread(thread_key(input_data.thread_id, principal),
                                         run_key(input_data.run_id, principal), json.dumps(entry))
        except StoreUnavailable as exc:
            logger.warning("run %s: not named as thread %s's live run: %s", input_data.run_id,
                           input_data.thread_id, exc)

    async def live_run(self, thread_id: str, principal: str | None) -> dict[str, Any] | None:
        """The thread's live run as :meth:`on_thread` named it (``runId``, ``started``: seconds since the epoch,
        ``messages``), None when no run of ``principal`` on the thread is live, or when the store cannot say (it
        is down: logged; the thread is still restored, without its live run)."""
        try:
            entry = await self.store.thread_run(thread_key(thread_id, principal))
        except StoreUnavailable as exc:
            logger.warning("thread %s: its live run is unknown: %s", thread_id, exc)
            return None
        return json.loads(entry) if entry else None

    async def known(self, run_id: str, principal: str | None) -> None:
        """404 unless the run exists (and is ``principal``'s); 503 when the store is down."""
        try:
            found = await self.store.known(run_key(check_run_id(run_id), principal), principal)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        if not found:
            raise HTTPException(404, f"no run {run_id!r}: unknown, expired, or not yours")

    async def replay_from(self, run_id: str, principal: str | None, last_event_id: str | None) -> int | None:
        """The number after which a reconnect streams (None: the id is the run's terminal event, nothing
        follows): 400 for an id that is not this run's, 404 when the events after it are no longer kept."""
        after = parse_last_event_id(run_id, last_event_id)
        try:
            first, last, ended, lost = await self.store.bounds(run_key(run_id, principal))
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        if ended and after == last:
            return None
        if lost and after >= last:  # the client holds events the store lost: nothing follows but RUN_LOST
            return after
        if after > last:
            raise HTTPException(400, f"Last-Event-ID {last_event_id!r} names an event run {run_id!r} has not written")
        if after + 1 < first:
            raise HTTPException(404, f"the events of run {run_id!r} after {after} are no longer kept")
        return after

    async def follow(self, run_id: str, principal: str | None, after: int) -> AsyncIterator[Stored | BaseEvent]:
        """The stored events after ``after``, then the live ones, to the terminal event; a RUN_ERROR
        ``RUN_LOST`` (no id) when the log ends without one (its worker died, or the store went down)."""
        try:
            async for item in self.store.follow(run_key(run_id, principal), after):
                yield item
                if item.terminal:
                    return
        except StoreUnavailable as exc:
            logger.warning("reconnect to run %s: %s", run_id, exc)
        yield RunErrorEvent(code="RUN_LOST", message=f"run {run_id!r} stopped before its end was stored: its "
                                                     "worker stopped, or the event store could not be read")

    async def cancel(self, run_id: str, principal: str | None) -> dict[str, str]:
        """Ask the run's worker to cancel it (404 unknown, 409 already ended, 503 store down)."""
        try:
            status = await self.store.cancel(run_key(check_run_id(run_id), principal), principal)
        except StoreUnavailable as exc:
            raise unavailable(exc) from exc
        if status in ("unknown", "ended") and await DETACHED.cancel_run(run_id, principal) is not None:
            return {"runId": run_id, "status": "cancelling"}  # its background tasks that outlived it, held here
        if status == "unknown":
            raise HTTPException(404, f"no run {run_id!r}: unknown, expired, or not yours")
        if status == "ended":
            raise HTTPException(409, f"run {run_id!r} has already ended")
        return {"runId": run_id, "status": "cancelling"}


def resumable_runs(setting: bool | Resumable, environment: ServeEnvironment) -> Resumable | None:
    """An endpoint's ``resumable`` setting with the served app's environment: a :class:`Resumable` of its own
    wins; else ``serve --resumable`` (:func:`from_environment`); else True is events in memory, False off."""
    if isinstance(setting, Resumable):
        return setting
    if environment.resumable:
        return from_environment(environment)
    return Resumable() if setting else None


def from_environment(environment: ServeEnvironment) -> Resumable | None:
    """What ``strands-agui serve --resumable [--events URL] [--detach-seconds S]`` set for every worker (None: not
    resumable); ``$STRANDS_AGUI_MAX_LIVE_RUNS_PER_PRINCIPAL`` sets the store's per-principal limit of live runs,
    ``$STRANDS_AGUI_REDIS_MAX_CONNECTIONS`` a worker's connections to Redis. The endpoints of a worker share its
    Redis store (they share its keys already): one pool of connections per worker, however many endpoints."""
    if not environment.resumable:
        return None
    url = environment.events
    per_principal = environment.max_live_runs_per_principal or DEFAULT_MAX_LIVE_RUNS_PER_PRINCIPAL
    store: EventStore = _redis_events(url, per_principal,
                                      environment.redis_max_connections or DEFAULT_MAX_CONNECTIONS) if url else \
        MemoryEvents(max_live_runs_per_principal=per_principal)
    detach = environment.detach_seconds
    return Resumable(store, DEFAULT_DETACH_SECONDS if detach is None else detach)


@functools.lru_cache(maxsize=16)
def _redis_events(url: str, per_principal: int, max_connections: int) -> RedisEvents:
    """The environment's Redis store, one per set of values (built once, like ``runtime/storage/default``' session
    store)."""
    return RedisEvents(url, max_live_runs_per_principal=per_principal, max_connections=max_connections)


def add_run_routes(app: FastAPI, path: str, resumable: Resumable, *, dependencies: list[params.Depends],
                   name: str, keepalive: float, coalesce: float,
                   reconnected: Callable[[int], None] | None = None) -> None:
    """``GET <path>/runs/{runId}/events`` (reconnect) and ``POST <path>/runs/{runId}/cancel``; ``reconnected``
    is told each reconnect's status code (``server/observability``)."""
    base = f"{path.rstrip('/')}/runs/{{run_id}}"

    async def run_events(request: Request, run_id: str, media_type: Annotated[str, Depends(require_event_stream)],
                         last_event_id: Annotated[str | None, Header()] = None,
                         protocol_version: Annotated[str | None, Query(
                             alias="protocolVersion", max_length=MAX_PROTOCOL_VERSION,
                             description="The AG-UI version the reconnecting client speaks, as its "
                                         "RunAgentInput.protocolVersion would declare it (none: 0.0.x)")] = None,
                         ) -> Response:
        """The run's events after ``Last-Event-ID`` (all without it), then the live ones to its end, each as the
        reconnecting client's own ``protocolVersion`` gets it; 204 when the id is the run's terminal event (the
        SSE standard's "stop reconnecting")."""
        try:
            response = await _reconnect(resumable, run_id, principal_of(request), media_type, last_event_id,
                                        protocol_version, keepalive, coalesce)
        except HTTPException as exc:
            if reconnected is not None:
                reconnected(exc.status_code)
            raise
        if reconnected is not None:
            reconnected(response.status_code)
        return response

    async def cancel_run(request: Request, run_id: str) -> JSONResponse:
        """Cancel the run on whichever worker runs it: it ends RUN_FINISHED ``outcome: cancelled``."""
        return JSONResponse(await resumable.cancel(run_id, principal_of(request)), status_code=202)

    app.add_api_route(f"{base}/events", run_events, methods=["GET"], response_class=RunStream, status_code=200,
                      dependencies=dependencies, name=f"{name}_run_events", summary="Reconnect to a run")
    app.add_api_route(f"{base}/cancel", cancel_run, methods=["POST"], status_code=202, dependencies=dependencies,
                      name=f"{name}_cancel_run", summary="Cancel a run")


async def _reconnect(resumable: Resumable, run_id: str, principal: str | None, media_type: str,
                     last_event_id: str | None, declared: str | None, keepalive: float, coalesce: float) -> Response:
    """The reconnect's response: 204 past the terminal event, else the stored events then the live ones."""
    await resumable.known(run_id, principal)
    after = await resumable.replay_from(run_id, principal, last_event_id)
    if after is None:
        return Response(status_code=204)
    framing = FRAMINGS[media_type]
    rewrite = rewrite_for(framing, declared)
    return RunStream(resumable.follow(run_id, principal, after), framing=framing, keepalive=keepalive,
                     coalesce=coalesce, encode=lambda item: reader_frame(framing, run_id, item, rewrite))


def reader_frame(framing: Framing, run_id: str, item: Stored | BaseEvent,
                 rewrite: Callable[[BaseEvent], BaseEvent]) -> bytes:
    """A reconnecting reader's frame: the stored (1.0) event as ``rewrite`` makes it for the reader's own
    generation (``server/transport/versions.py``), with its id; the stored text itself when the rewrite changes
    nothing."""
    if not isinstance(item, Stored):
        return framing.frame(rewrite(item))  # RUN_LOST: never stored, no id
    event = _EVENT.validate_json(item.data)
    shown = rewrite(event)
    if shown is not event:
        item = Stored(item.seq, encode_event(shown), shown.type.value)
    return stored_frame(framing, run_id, item)


def check_run_id(run_id: str) -> str:
    """The run id of a route's path, or 422 when it breaks the id grammar (``validation.ID_PATTERN``)."""
    return check_id(run_id, "runId")


def parse_last_event_id(run_id: str, header: str | None) -> int:
    """The event number a ``Last-Event-ID`` header names (0 without one); 400 for a malformed one or one
    naming another run."""
    if header is None or header == "":
        return 0
    if len(header) > MAX_LAST_EVENT_ID:
        raise HTTPException(400, f"Last-Event-ID is longer than {MAX_LAST_EVENT_ID} characters")
    named, _, number = header.rpartition(":")
    if named != run_id:
        raise HTTPException(400, f"Last-Event-ID {header[:80]!r} is not an id of run {run_id!r}")
    if not number.isdigit() or not number.isascii() or len(number) > 18:
        raise HTTPException(400, f"Last-Event-ID {header[:80]!r} does not end with an event number")
    return int(number)


RUN_LIMIT_RETRY_SECONDS = 5
_LIMITS = {
    "live_runs_per_principal": "you already have {maximum} live resumable runs, the most one caller may have",
    "runs": "the event store holds {maximum} runs, every one still live",
    "live_runs": "{maximum} resumable runs are live on this deployment, the most it allows",
    "bytes": "live runs hold the event store's {maximum} bytes",
}


def run_limit(exc: RunLimit) -> HTTPException:
    """429 ``RUN_LIMIT`` (``errors.REFUSAL_CODES``): which limit, its maximum, what to do."""
    what = _LIMITS.get(exc.limit, "{maximum}").format(maximum=exc.maximum)
    return HTTPException(429, {
        "code": "RUN_LIMIT", "limit": exc.limit, "maximum": exc.maximum,
        "message": f"{what}: wait for a run to end (or cancel one: POST .../runs/{{runId}}/cancel), then retry; "
                   "nothing was started"}, headers={"Retry-After": str(RUN_LIMIT_RETRY_SECONDS)})


def unavailable(exc: StoreUnavailable) -> HTTPException:
    return HTTPException(503, f"resumable runs are unavailable: {exc}", headers={"Retry-After": "5"})


__all__ = ["DEFAULT_DETACH_SECONDS", "LIVE_MESSAGES_BYTES", "Resumable", "add_run_routes", "parse_last_event_id"]
