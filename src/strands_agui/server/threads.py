"""The thread API of an endpoint path: list, restore and delete the caller's server-side threads.

* ``GET {path}/threads?limit=&cursor=``: the caller's threads, most recently updated first (id, title = the
  first user message, when it last changed, the interrupts it waits for) and ``nextCursor`` (None: no more);
* ``GET {path}/threads/{threadId}``: what a page needs to restore it: its AG-UI messages, state and pending
  interrupts;
* ``DELETE {path}/threads/{threadId}``: forget it (and its pause), 204.

Every route is the caller's principal's only (``server/principals.py``): another principal's thread, like a
thread that does not exist, is 404. With server-side threads off the list is empty and every thread 404. The
routes run the endpoint's ``auth`` and ``dependencies``; the store's own I/O runs in FastAPI's thread pool.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from strands.types.exceptions import SessionException

from ..runtime.agent import StrandsAgent
from ..runtime.threads import DEFAULT_PAGE, MAX_PAGE, StoredThread, Threads
from .principals import principal_of
from .settings import EndpointSettings
from .validation import check_id


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

    messages: list[dict[str, Any]] = Field(description="The thread's AG-UI messages, as the client holds them.")
    state: Any = Field(description="The thread's shared state.")


_NOT_FOUND = "no such thread"


_MISSING: dict[int | str, dict[str, Any]] = {404: {"description": "The caller has no such thread."}}


def add_thread_routes(app: FastAPI, agent: StrandsAgent, path: str, settings: EndpointSettings) -> None:
    """Register the thread API under ``path`` (see the module docstring)."""
    base = f"{path.rstrip('/')}/threads"
    name = settings.name or agent.name

    def list_threads(request: Request, limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
                     cursor: str | None = None) -> ThreadPage:
        """The caller's threads, most recently updated first."""
        threads = agent.thread_store()
        if threads is None:
            return ThreadPage(threads=[], next_cursor=None)
        try:
            found, after = _stored(lambda: threads.page(principal_of(request), limit, cursor))
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from exc
        return ThreadPage(threads=[ThreadSummary.model_validate(t.summary()) for t in found], next_cursor=after)

    def get_thread(request: Request, thread_id: str) -> ThreadView:
        """The caller's thread: messages, state, pending interrupts."""
        check_id(thread_id, "threadId")
        threads = agent.thread_store()
        thread = _stored(lambda: threads.load(thread_id, principal_of(request))) if threads else None
        if thread is None:
            raise HTTPException(404, _NOT_FOUND)
        return ThreadView.model_validate(thread.view())

    def delete_thread(request: Request, thread_id: str) -> Response:
        """Forget the caller's thread and its pause."""
        check_id(thread_id, "threadId")
        threads: Threads | None = agent.thread_store()
        if threads is None or not _stored(lambda: threads.delete(thread_id, principal_of(request))):
            raise HTTPException(404, _NOT_FOUND)
        return Response(status_code=204)

    common: dict[str, Any] = {"dependencies": settings.route_dependencies, "tags": ["threads"]}
    app.add_api_route(base, list_threads, methods=["GET"], name=f"{name}_threads",
                      summary="List your threads", **common)
    app.add_api_route(f"{base}/{{thread_id}}", get_thread, methods=["GET"], name=f"{name}_thread",
                      summary="Restore a thread", responses=_MISSING, **common)
    app.add_api_route(f"{base}/{{thread_id}}", delete_thread, methods=["DELETE"], status_code=204,
                      name=f"{name}_delete_thread", summary="Delete a thread", responses=_MISSING,
                      response_class=Response, **common)


def _stored(read: Any) -> Any:
    """A store read; a failing store is 503 with its reason."""
    try:
        return read()
    except (OSError, SessionException) as exc:
        raise HTTPException(503, f"the session store failed: {type(exc).__name__}: {exc}") from exc


__all__ = ["ThreadPage", "ThreadSummary", "ThreadView", "StoredThread", "add_thread_routes"]
