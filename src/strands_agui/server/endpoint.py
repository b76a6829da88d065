"""FastAPI transport: one POST route that streams a :class:`StrandsAgent` run as AG-UI over SSE.

Everything HTTP is FastAPI's own machinery; this module only decides what to stream.

* **Framing.** The route returns a :class:`~strands_agui.server.streaming.RunStream`, a Starlette
  ``StreamingResponse`` that iterates the run in the request's own task and writes one frame per AG-UI
  event: ``ag_ui.encoder.EventEncoder`` frames (``data: <json>\\n\\n``, LF only, as ``@ag-ui/client``
  requires), with the ``Cache-Control: no-cache`` and ``X-Accel-Buffering: no`` headers. FastAPI's own
  generator SSE path is not used: it adds a producer task, two memory streams and a timer per frame.
  With ``protobuf`` installed, an Accept header that prefers ``application/vnd.ag-ui.event+proto`` gets
  the AG-UI protobuf framing instead (``negotiation.py`` picks, ``proto/`` encodes; SSE wins a tie).
  Frames that come faster than one per ``coalesce_seconds`` (50 ms) share one write (see ``streaming``).
* **Keep-alive.** After ``keepalive_seconds`` without a frame, a ``: ping`` comment
  (``fastapi.sse.KEEPALIVE_COMMENT``). Per endpoint, with no timer per event: see ``streaming``.
* **Validation before the stream** (``validation.py``). While FastAPI reads the body, an oversized
  one is refused (413, whether or not ``Content-Length`` was sent) and so is malformed JSON: not
  UTF-8, a lone surrogate, nesting over ``max_depth``, a U+0000 (422 ``json_invalid``). Then route
  dependencies run, in this order: the caller's ``dependencies`` (authentication), then one dependency
  for the Content-Type (415) and Accept (406) checks. Then the RunAgentInput is validated (FastAPI's 422, whose
  ``loc`` names the field), then what its schema cannot say (message count, image data, tool
  schemas, unanswerable tool results: 422). So a status code is always final before the first
  byte of the stream is sent.
* **Cancellation.** The run's generator is iterated, and closed, only in the request's task (Strands
  keeps OpenTelemetry context in contextvars, so it must stay in one task). Under uvicorn (ASGI spec 2.3)
  the stream's watcher sees ``http.disconnect`` at once and cancels the run, even in the middle of a silent
  tool call; no task the request started outlives it. A reader that takes nothing for
  ``2 * keepalive_seconds`` while a frame waits is treated the same way (back-pressure: meanwhile the run
  is not iterated, so its unread output stays within the transport's buffer).
* **Known noise.** A run that the endpoint stops early (ENCODING_ERROR) closes Strands'
  ``stream_async`` while it is suspended. Strands then leaves inner generators to the garbage
  collector, and OpenTelemetry logs "Failed to detach context". The core's own halt after a
  frontend tool call does the same. This comes from Strands and is harmless.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Annotated, Any

from ag_ui.core import RunAgentInput
from fastapi import Depends, FastAPI, Request, params
from fastapi.middleware.cors import CORSMiddleware

from ..config import InvocationStateProvider, MediaFetchPolicy
from ..runtime.agent import StrandsAgent
from ..runtime.capabilities import capabilities
from ..runtime.sessions import SessionStore
from .inspector import inspected_run, wants_inspection
from .negotiation import PRODUCED_MEDIA_TYPES, SSE_MEDIA_TYPE, accepts, negotiate
from .principals import principal_dependency, principal_of
from .proto import INSTALL_HINT, PROTO_MEDIA_TYPE
from .streaming import COALESCE_SECONDS, FRAMINGS, RunStream, encode_event, yield_to_loop
from .validation import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_MESSAGES,
    RequestLimits,
    require_message_roles,
    run_route,
    validated_run_input,
)

__all__ = [
    "SSE_MEDIA_TYPE",
    "InvocationStateProvider",
    "accepts",
    "add_ping",
    "add_strands_fastapi_endpoint",
    "create_strands_app",
    "encode_event",
    "without_api_docs",
]


_UNSET: Any = object()
DEFAULT_KEEPALIVE_SECONDS = 15.0

_SSE_ITEM = {  # one SSE event, as FastAPI documents a generator SSE route
    "type": "object",
    "properties": {"data": {"type": "string"}, "event": {"type": "string"}, "id": {"type": "string"},
                   "retry": {"type": "integer", "minimum": 0}},
}
_PROTO_BODY = {  # the AG-UI protobuf framing (server/proto): length-prefixed ag_ui.Event messages
    "type": "string", "format": "binary",
    "description": "Frames of a 4-byte big-endian length and one ag_ui.Event (@ag-ui/proto 1.0.0 schema).",
}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The run's AG-UI events: SSE, or the protobuf framing when Accept prefers it "
                         f"(needs {INSTALL_HINT}).",
          "content": {SSE_MEDIA_TYPE: {"itemSchema": _SSE_ITEM}, PROTO_MEDIA_TYPE: {"schema": _PROTO_BODY}}},
    406: {"description": f"The Accept header allows none of: {', '.join(PRODUCED_MEDIA_TYPES)}."},
    413: {"description": "The request body is larger than the endpoint's max_body_bytes."},
    415: {"description": "The request body is not JSON (Content-Type must be application/json)."},
}


# ----------------------------------------------------------------------------- public API


def _check_settings(keepalive_seconds: float, coalesce_seconds: float) -> None:
    if not keepalive_seconds > 0:
        raise ValueError(f"keepalive_seconds must be positive, not {keepalive_seconds!r}")
    if not 0 <= coalesce_seconds < float("inf"):
        raise ValueError(f"coalesce_seconds must be a finite number >= 0, not {coalesce_seconds!r}")


def add_strands_fastapi_endpoint(
    app: FastAPI,
    agent: StrandsAgent,
    path: str = "/",
    *,
    dependencies: Sequence[params.Depends] | None = None,
    auth: Callable[..., Any] | None = None,
    invocation_state_provider: InvocationStateProvider | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_messages: int = DEFAULT_MAX_MESSAGES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    keepalive_seconds: float = DEFAULT_KEEPALIVE_SECONDS,
    coalesce_seconds: float = COALESCE_SECONDS,
    name: str | None = None,
    inspect: bool = False,
    fetch_media: MediaFetchPolicy | None = None,
) -> None:
    """Register ``POST path``: a RunAgentInput body in, the run's AG-UI events out as SSE (or the protobuf
    framing, when the Accept header prefers it and ``protobuf`` is installed).

    ``auth`` (a FastAPI dependency callable that raises ``HTTPException`` to refuse, ``ag_ui_strands``' name)
    and then ``dependencies`` (e.g. ``[Depends(verify_token)]``) run first. What ``auth`` returns, when it is a
    ``str``, is the caller's principal: threads (their pauses) are the principal's own, another principal's
    request on the same ``threadId`` is another thread (``server/principals.py``; None: the anonymous one).
    A request they refuse, or one
    answered 406, 413, 415 or 422, never starts a run. A started run streams with status 200 and
    ends with one RUN_FINISHED or RUN_ERROR, unless the client leaves first, which cancels it.
    ``invocation_state_provider(request, input_data)`` (sync or async) returns a dict of trusted,
    request-scoped values handed to Strands as ``invocation_state`` (a copy per run), or None. It is the run's
    ``StrandsAgentConfig.invocation_state_provider``: one that fails ends the run with ``INVOCATION_STATE_ERROR``.
    ``keepalive_seconds`` is the longest silence before a ``: ping`` comment. ``coalesce_seconds`` is the longest
    a frame waits to share one write with the frames after it (only while frames come faster than that; the first
    and the terminal frame never wait; at most ``keepalive_seconds``; 0: one write per frame; see
    ``server/streaming.py``). The limits
    (``max_body_bytes``, ``max_messages``, ``max_depth``) are described in :class:`RequestLimits`. ``inspect=True``
    lets a request ask for the run's machine trace and replayable log as CUSTOM events (``server.inspector``;
    development servers only: it shows the raw Strands events). ``fetch_media`` (off when None) lets image and
    document parts given by URL be fetched before the run, refusing private, loopback and link-local addresses
    (``server/media.py``); without it such a part is refused (422).
    """
    _check_settings(keepalive_seconds, coalesce_seconds)
    limits = RequestLimits(max_body_bytes, max_messages, max_depth)
    scope = principal_dependency(auth)  # runs auth; its str value scopes the caller's threads
    guards = [*([Depends(scope)] if scope is not None else ()), *(dependencies or ())]
    if invocation_state_provider is not None:  # the endpoint's provider is the run's (runtime/invocation.py)
        agent = copy.copy(agent)
        agent.config = replace(agent.config, invocation_state_provider=invocation_state_provider)

    async def run_agent(
        request: Request,
        media_type: Annotated[str, Depends(negotiate)],  # 415, 406: before the body's 422
        input_data: Annotated[RunAgentInput, Depends(validated_run_input)],
    ) -> RunStream:
        """The run, streamed in the framing the Accept header chose. Runs only once every dependency has
        passed. The request reaches the ``invocation_state_provider``; the run yields to the event loop after
        each Strands event (``pace``, see ``streaming``: Fairness)."""
        principal = principal_of(request)
        events = (inspected_run(agent, input_data, request=request, pace=yield_to_loop, principal=principal)
                  if inspect and wants_inspection(input_data)
                  else agent.run(input_data, request=request, pace=yield_to_loop, principal=principal))
        return RunStream(events, framing=FRAMINGS[media_type], keepalive=keepalive_seconds,
                         coalesce=coalesce_seconds)

    app.router.add_api_route(
        path,
        run_agent,
        methods=["POST"],
        response_class=RunStream,
        status_code=200,
        dependencies=guards,
        route_class_override=run_route(limits, fetch_media),
        name=name or agent.name,
        summary=f"Run {agent.name}",
        description=agent.description or "Run the agent; AG-UI events stream back as SSE (or protobuf, by Accept).",
        responses=_RESPONSES,
    )

    async def agent_capabilities() -> dict[str, Any]:
        """The agent's AG-UI ``AgentCapabilities`` (see ``runtime/capabilities.py``)."""
        return capabilities(agent).model_dump(mode="json", by_alias=True, exclude_none=True)

    app.add_api_route(f"{path.rstrip('/')}/capabilities", agent_capabilities, methods=["GET"],
                      dependencies=guards,
                      name=f"{name or agent.name}_capabilities", summary=f"What {agent.name} can do")
    _document_message_roles(app)


def _document_message_roles(app: FastAPI) -> None:
    """Make the app's OpenAPI say that every message needs its ``role`` (once per app)."""
    if getattr(app.openapi, "requires_message_roles", False):
        return
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = require_message_roles(generate())
        return app.openapi_schema

    openapi.requires_message_roles = True  # type: ignore[attr-defined]
    app.openapi = openapi  # type: ignore[method-assign]


def create_strands_app(
    agent: StrandsAgent,
    path: str = "/",
    health_path: str | None = "/ping",
    *,
    cors_origins: Sequence[str] = (),
    dependencies: Sequence[params.Depends] | None = None,
    auth: Callable[..., Any] | None = None,
    invocation_state_provider: InvocationStateProvider | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_messages: int = DEFAULT_MAX_MESSAGES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    keepalive_seconds: float = DEFAULT_KEEPALIVE_SECONDS,
    coalesce_seconds: float = COALESCE_SECONDS,
    sessions: SessionStore | None = None,
    origins: Sequence[str] | None = None,
    ping_path: str | None = _UNSET,
    api_docs: bool = True,
    fetch_media: MediaFetchPolicy | None = None,
) -> FastAPI:
    """A FastAPI app that serves ``agent`` at ``POST path``, with ``GET health_path`` returning
    ``{"status": "ok"}`` (unauthenticated; pass None for no health route).

    ``sessions`` is where the agent's paused runs wait for their resume (default: the agent's own, see
    :class:`~strands_agui.runtime.sessions.FileSessions`). ``auth``, ``dependencies``,
    ``invocation_state_provider``, ``fetch_media``, the limits, ``keepalive_seconds`` and ``coalesce_seconds`` are
    those of :func:`add_strands_fastapi_endpoint`.

    CORS is off unless ``cors_origins`` is given. Then exactly those origins may call the app (GET and
    POST, any request header, no credentials). There is never a wildcard origin.

    ``ag_ui_strands``' keyword names are accepted as aliases (:data:`ALIASES`): ``origins=`` for
    ``cors_origins`` and ``ping_path=`` for ``health_path`` (one of each pair, not both).

    ``api_docs=False`` removes ``/docs``, ``/redoc`` and ``/openapi.json`` (404).
    """
    health_path, cors_origins = _resolve_aliases(health_path, ping_path, cors_origins, origins)
    if sessions is not None:
        agent = copy.copy(agent)
        agent.sessions = sessions
    app = FastAPI(title=agent.name, description=agent.description)
    if not api_docs:
        without_api_docs(app)
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
        add_ping(app, health_path)
    add_strands_fastapi_endpoint(
        app, agent, path, dependencies=dependencies, auth=auth, invocation_state_provider=invocation_state_provider,
        max_body_bytes=max_body_bytes, max_messages=max_messages, max_depth=max_depth,
        keepalive_seconds=keepalive_seconds, coalesce_seconds=coalesce_seconds, fetch_media=fetch_media,
    )
    return app


def add_ping(app: FastAPI, path: str = "/ping") -> None:
    """``GET path`` -> ``{"status": "ok"}``, unauthenticated (health probes, Bedrock AgentCore's ``/ping``)."""
    app.add_api_route(path, _health, methods=["GET"], name="health")


ALIASES: dict[str, str] = {"origins": "cors_origins", "ping_path": "health_path"}
"""``ag_ui_strands`` keyword of ``create_strands_app`` -> ours, with the same meaning."""


def _resolve_aliases(health_path: str | None, ping_path: str | None, cors_origins: Sequence[str],
                     origins: Sequence[str] | None) -> tuple[str | None, Sequence[str]]:
    if ping_path is not _UNSET:
        if health_path != "/ping":
            raise TypeError("create_strands_app(): pass health_path or its alias ping_path, not both")
        health_path = ping_path
    if origins is not None:
        if cors_origins:
            raise TypeError("create_strands_app(): pass cors_origins or its alias origins, not both")
        cors_origins = origins
    return health_path, cors_origins


def without_api_docs(app: FastAPI) -> FastAPI:
    """Remove ``app``'s API docs routes (``/openapi.json``, ``/docs``, ``/redoc`` and the OAuth2 redirect):
    they answer 404 afterwards. Works on any FastAPI app; ``strands-agui serve --no-docs`` applies it."""
    paths = {app.openapi_url, app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url} - {None}
    app.router.routes = [route for route in app.router.routes if getattr(route, "path", None) not in paths]
    app.openapi_url = app.docs_url = app.redoc_url = None
    return app


async def _health() -> dict[str, str]:
    """Liveness: the process is up and serving."""
    return {"status": "ok"}
