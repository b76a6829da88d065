"""The thread API of an endpoint path: list, restore and delete the caller's server-side threads.

* ``GET {path}/threads?limit=&cursor=``: the caller's threads, most recently updated first (id, title = the
  first user message, when it last changed, the interrupts it waits for) and ``nextCursor`` (None: no more);
* ``GET {path}/threads/{threadId}?before=&limit=``: what a page needs to restore it: its AG-UI messages (all,
  or a page: ``limit`` before the message ``before``, ``nextBefore`` for the one before it), state, pending
  interrupts, and the ``holds`` marker a client sends to get no snapshot of what it already holds; with resumable
  runs on, ``liveRun`` while a run of the caller's on the thread is live (its id, to attach to it by
  ``GET {path}/runs/{runId}/events``, and the messages it was sent that the thread does not hold yet): a page
  reloaded mid-run shows the thread, then the run from its start (a thread whose first run is live answers
  with no messages and that ``liveRun``);
* ``DELETE {path}/threads/{threadId}``: forget it (and its pause), 204;
* ``POST {path}/threads/{threadId}/feedback`` ``{messageId, rating: "up" | "down", comment?}``: feedback on one
  of the thread's assistant messages, kept with the thread (``feedback`` of its view) and recorded as an
  OpenTelemetry event under the span of the run that wrote the message (``server/observability/tracing.py``); 200 with
  the
  entry (and ``traceId`` when traced). A body that is not that is 422 naming the field; a message the thread
  does not hold is 422 naming ``messageId``.

Every route is the caller's principal's only (``server/request/principals.py``): another principal's thread, like a
thread that does not exist, is 404. With server-side threads off the list is empty and every thread 404. The
routes run the endpoint's ``auth`` and ``dependencies``. They are async: the store's own I/O runs in worker
threads of their own, at most ``STORE_THREADS`` at once per process (never in the thread pool that sync
dependencies and everything else use), so a brownout of the store cannot starve the server. A route that
waits longer than the store's bound for one of them answers 503 (busy), as one whose store fails (unavailable).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

import anyio
from fastapi import FastAPI, HTTPException, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from strands.types.exceptions import SessionException

from ..runtime.adapter import StrandsAgent
from ..runtime.storage.threads import DEFAULT_PAGE, MAX_MESSAGES, MAX_PAGE, StoredThread, Threads
from .observability.tracing import record_feedback
from .request.principals import principal_of
from .request.validation import check_id
from .resumable.run_routes import Resumable
from .settings import EndpointSettings


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class ThreadSummary(_Camel):
    """One thread of a list."""

    thread_id: str
    title: str = Field(description="The thread's first user message (shortened).")
    updated: str = Field(description="When the thread last changed (ISO 8601, UTC).")
    pending_interrupts: list[dict[str, Any]] = Field(description="The AG-UI interrupts the thread waits for.")


class ThreadPage(_Camel):
    threads: list[ThreadSummary]
    next_cursor: str | None = Field(description="Pass as ?cursor= for the next page; null: no more.")


class ThreadView(ThreadSummary):
    """What a page needs to restore the thread."""

    messages: list[dict[str, Any]] = Field(description="The thread's AG-UI messages, as the client holds them "
                                                       "(with ?limit=: the page asked for, oldest first).")
    state: Any = Field(description="The thread's shared state.")
    next_before: str | None = Field(None, description="With ?limit=: pass as ?before= for the page of messages "
                                                      "before this one; null: it starts the thread.")
    holds: dict[str, Any] = Field(default_factory=dict, description=(
        "What to send as forwardedProps.strandsAgui.holds with the next run's new messages: the server then "
        "sends no MESSAGES_SNAPSHOT while the thread is the one restored ({lastMessageId, messages})."))
    feedback: list[dict[str, Any]] = Field(default_factory=list, description="Feedback on its messages, oldest first.")
    live_run: LiveRun | None = Field(None, exclude_if=lambda run: run is None, description=(
        "Resumable runs on: the caller's run on the thread while it runs; absent when none is."))


class LiveRun(_Camel):
    """The run on the thread while it runs (resumable runs on)."""

    run_id: str = Field(description="Attach with GET {path}/runs/{runId}/events: the run from its first event.")
    started_at: str = Field(description="When it started (ISO 8601, UTC).")
    messages: list[dict[str, Any]] = Field(description=(
        "The messages it was sent that the thread does not hold yet (its new user message): a page shows them "
        "after the thread's messages, before the run's events."))


class Feedback(_Camel):
    """Feedback on one assistant message of the thread."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    message_id: str = Field(min_length=1, max_length=200, description="The assistant message's id.")
    rating: Literal["up", "down"]
    comment: str | None = Field(default=None, max_length=2000)


class FeedbackKept(Feedback):
    at: str = Field(description="When it was kept (ISO 8601, UTC).")
    trace_id: str | None = Field(default=None, description="The trace it was recorded in (tracing on).")


_NOT_FOUND = "no such thread"
STORE_THREADS = 8  # store calls of the thread routes at once, per process
DEFAULT_WAIT_SECONDS = 6.0  # how long a route waits for one of them when its store states no bound of its own
_T = TypeVar("_T")

_UNAVAILABLE: dict[int | str, dict[str, Any]] = {503: {"description": "The session store failed, timed out or is "
                                                                     "busy (Retry-After)."}}
_MISSING: dict[int | str, dict[str, Any]] = {404: {"description": "The caller has no such thread."},
                                             **_UNAVAILABLE}


def add_thread_routes(app: FastAPI, agent: StrandsAgent, path: str, settings: EndpointSettings,
                      runs: Resumable | None = None) -> None:
    """Register the thread API under ``path`` (see the module docstring); ``runs``: the endpoint's resumable runs
    (``liveRun``)."""
    base = f"{path.rstrip('/')}/threads"
    name = settings.name or agent.name
    common: dict[str, Any] = {"dependencies": settings.route_dependencies, "tags": ["threads"]}
    app.add_api_route(base, _list_threads(agent), methods=["GET"], name=f"{name}_threads",
                      summary="List your threads",
                      responses={400: {"description": "A cursor this server never gave."}, **_UNAVAILABLE},
                      **common)
    app.add_api_route(f"{base}/{{thread_id}}", _get_thread(agent, runs), methods=["GET"], name=f"{name}_thread",
                      summary="Restore a thread",
                      responses={400: {"description": "A before that names no message of the thread."},
                                 **_MISSING}, **common)
    app.add_api_route(f"{base}/{{thread_id}}", _delete_thread(agent), methods=["DELETE"], status_code=204,
                      name=f"{name}_delete_thread", summary="Delete a thread", responses=_MISSING,
                      response_class=Response, **common)
    app.add_api_route(f"{base}/{{thread_id}}/feedback", _post_feedback(agent, settings), methods=["POST"],
                      name=f"{name}_feedback", summary="Rate an answer",
                      responses={**_MISSING, 422: {"description": "The body, or a message the thread lacks."}},
                      response_model_exclude_none=True, **common)


def _list_threads(agent: StrandsAgent) -> Callable[..., Any]:
    """The route ``GET threads``."""

    async def list_threads(request: Request, limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
                           cursor: str | None = None) -> ThreadPage:
        """The caller's threads, most recently updated first."""
        threads = agent.thread_store()
        if threads is None:
            return ThreadPage(threads=[], next_cursor=None)
        try:
            found, after = await _stored(threads, lambda: threads.page(principal_of(request), limit, cursor))
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from exc
        return ThreadPage(threads=[ThreadSummary.model_validate(t.summary()) for t in found], next_cursor=after)

    return list_threads


def _get_thread(agent: StrandsAgent, runs: Resumable | None) -> Callable[..., Any]:
    """The route ``GET threads/{thread_id}``."""

    async def get_thread(request: Request, thread_id: str, before: str | None = None,
                         limit: Annotated[int | None, Query(ge=1, le=MAX_MESSAGES)] = None) -> ThreadView:
        """The caller's thread: messages (all, or ``limit`` before the message ``before``), state, pending
        interrupts."""
        check_id(thread_id, "threadId")
        if before is not None and (not before or len(before) > 200 or not before.isascii()
                                   or not before.isprintable()):
            raise HTTPException(400, "before: not a message id (pass a nextBefore back unchanged)")
        threads, principal = agent.thread_store(), principal_of(request)
        # the live run first: a run that ends meanwhile is then in the thread (kept before its end), not lost
        live = await runs.live_run(thread_id, principal) if runs is not None and threads is not None else None
        thread = await _stored(threads, lambda: threads.load(thread_id, principal)) if threads else None
        if thread is not None and live is not None and _kept_by(thread, live):
            live = None  # it kept the thread already: its RUN_FINISHED is on its way, the thread holds it all
        if live is None:
            if thread is None:
                raise HTTPException(404, _NOT_FOUND)
            return ThreadView.model_validate(_view(thread, before, limit))
        first = thread is None  # the thread's first run is live: nothing is kept yet
        shown = thread or StoredThread(thread_id, principal, updated=live["started"])
        view = {**_view(shown, before, limit), "liveRun": _live_run(live, shown)}
        if first:
            view["title"] = _first_user_text(view["liveRun"]["messages"])
        return ThreadView.model_validate(view)

    return get_thread


def _delete_thread(agent: StrandsAgent) -> Callable[..., Any]:
    """The route ``DELETE threads/{thread_id}``."""

    async def delete_thread(request: Request, thread_id: str) -> Response:
        """Forget the caller's thread and its pause."""
        check_id(thread_id, "threadId")
        threads: Threads | None = agent.thread_store()
        if threads is None or not await _stored(threads, lambda: threads.delete(thread_id, principal_of(request))):
            raise HTTPException(404, _NOT_FOUND)
        return Response(status_code=204)

    return delete_thread


def _post_feedback(agent: StrandsAgent, settings: EndpointSettings) -> Callable[..., Any]:
    """The route ``POST threads/{thread_id}/feedback``."""

    async def post_feedback(request: Request, thread_id: str, feedback: Feedback) -> FeedbackKept:
        """Feedback on one of the thread's assistant messages: kept with the thread, traced with its run."""
        check_id(thread_id, "threadId")
        threads = agent.thread_store()
        entry = feedback.model_dump(by_alias=True, exclude_none=True)
        try:
            kept = await _stored(threads, lambda: threads.add_feedback(thread_id, principal_of(request), entry)) \
                if threads else None
        except LookupError as exc:
            raise RequestValidationError([{"type": "value_error", "loc": ("body", "messageId"), "input": None,
                                           "msg": str(exc)}]) from exc
        if kept is None:
            raise HTTPException(404, _NOT_FOUND)
        thread, run = kept
        trace_id = record_feedback(thread_id, entry, run) if settings.tracing is not False else None
        return FeedbackKept.model_validate({**thread.feedback[-1], "traceId": trace_id})

    return post_feedback


def _view(thread: StoredThread, before: str | None, limit: int | None) -> dict[str, Any]:
    """The thread's view (``StoredThread.view``), 400 for a ``before`` it does not hold."""
    try:
        return thread.view(before, limit)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from exc


def _kept_by(thread: StoredThread, live: dict[str, Any]) -> bool:
    """Whether the live run has kept the thread (it does just before its terminal event): the thread changed
    since the run started and holds the messages it was sent (feedback, which changes the thread too, adds none)."""
    held = {m.get("id") for m in thread.messages}
    return thread.updated >= live["started"] and all(m.get("id") in held for m in live.get("messages", []))


def _live_run(live: dict[str, Any], thread: StoredThread) -> dict[str, Any]:
    """The ``liveRun`` of a view: the run's id, when it started, its messages the thread does not hold."""
    held = {m.get("id") for m in thread.messages}
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(live["started"]))
    return {"runId": live["runId"], "startedAt": started,
            "messages": [m for m in live.get("messages", []) if m.get("id") not in held]}


def _first_user_text(messages: list[dict[str, Any]]) -> str:
    """The title of a thread whose first run is live: its first user message's text, shortened."""
    text = next((m.get("content") for m in messages if m.get("role") == "user"), None)
    return text[:80] if isinstance(text, str) else ""


_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[anyio.CapacityLimiter, anyio.CapacityLimiter]] = \
    weakref.WeakKeyDictionary()


def _limiters() -> tuple[anyio.CapacityLimiter, anyio.CapacityLimiter]:
    """The thread routes' own worker threads, per event loop: the gate a call waits at, the pool it runs in."""
    loop = asyncio.get_running_loop()
    if loop not in _POOLS:
        _POOLS[loop] = anyio.CapacityLimiter(STORE_THREADS), anyio.CapacityLimiter(STORE_THREADS)
    return _POOLS[loop]


async def _stored(threads: Threads, read: Callable[[], _T]) -> _T:
    """A store call in one of the routes' own threads: 503 when none frees up within the store's bound (busy),
    or when the store fails (with its reason); ``Retry-After`` either way."""
    gate, pool = _limiters()
    bound = float(getattr(threads.store, "call_seconds", DEFAULT_WAIT_SECONDS))
    admitted = False
    with anyio.move_on_after(bound):
        await gate.acquire()
        admitted = True
    if not admitted:
        raise HTTPException(503, f"the session store is busy: {STORE_THREADS} calls of it did not end within "
                                 f"{bound:g} s", headers={"Retry-After": "1"})
    try:
        return await anyio.to_thread.run_sync(read, limiter=pool)  # never waits: the gate admits as many
    except (OSError, SessionException) as exc:
        raise HTTPException(503, f"the session store failed: {type(exc).__name__}: {exc}",
                            headers={"Retry-After": "1"}) from exc
    finally:
        gate.release()


__all__ = ["LiveRun", "ThreadPage", "ThreadSummary", "ThreadView", "StoredThread", "add_thread_routes"]
