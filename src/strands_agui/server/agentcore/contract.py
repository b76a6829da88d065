"""An app that serves one agent as Amazon Bedrock AgentCore Runtime calls an AG-UI container
(``docs/deployment.md``, "Amazon Bedrock AgentCore Runtime"):

* ``POST /invocations``: the endpoint of :func:`~strands_agui.server.endpoint.add_strands_fastapi_endpoint` (SSE by
  default and for a request without ``Accept``, protobuf when ``Accept`` asks; a bad body a 4xx), with its
  capabilities, threads and resumable-run routes under ``/invocations/...``;
* ``/ws``: the same agent over a WebSocket (``socket_runs.py``: cancel and resume on one socket), its runs counted
  in the endpoint's metrics and admitted by its admission control (a refused run closes the socket with 1013);
* ``GET /ping``: ``Healthy`` / ``HealthyBusy`` with ``time_of_last_update`` (``health.py``).

An invocation that declares no ``Content-Type`` is read as JSON (AgentCore passes the caller's body through).
AgentCore's headers (:class:`AgentCoreHeaders`) are read on every request and WebSocket upgrade: the session id and
the request id become attributes of the run's span (``session.id``, ``agentcore.request.id``) and are logged with
the route. The session id is AgentCore's routing key (one microVM per session), not an identity: it scopes nothing
(the principal is the endpoint's ``auth``'s, the thread is the input's ``threadId``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any, Unpack

from ag_ui.core import RunAgentInput
from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from ...environment import ServeEnvironment
from ...runtime.adapter import StrandsAgent
from ..app import ServedApp, create_strands_app
from ..console.page import console_entries
from ..endpoint import served_agent, served_endpoint
from ..observability.tracing import REQUEST_ATTRIBUTES
from ..request import early_refusal
from ..settings import AppOptions, AppSettings, settings_with, takes_settings
from .health import ping_body
from .socket_runs import serve_socket

logger = logging.getLogger(__name__)

__all__ = ["INVOCATIONS", "PING", "SOCKET", "AgentCoreHeaders", "agentcore_app_for", "create_agentcore_app"]

INVOCATIONS, SOCKET, PING = "/invocations", "/ws", "/ping"
SESSION_HEADER = "x-amzn-bedrock-agentcore-runtime-session-id"
REQUEST_HEADER = "x-amzn-bedrock-agentcore-runtime-request-id"
CUSTOM_PREFIX = "x-amzn-bedrock-agentcore-runtime-custom-"


@dataclass(frozen=True)
class AgentCoreHeaders:
    """What AgentCore's proxy adds to a request or a WebSocket upgrade: the user session's id (one per
    ``runtimeSessionId``), the invocation's request id, and the ``X-Amzn-Bedrock-AgentCore-Runtime-Custom-*``
    headers the caller chose to pass (``Authorization`` stays the endpoint's ``auth``'s to read)."""

    session_id: str | None
    request_id: str | None
    custom: dict[str, str]

    @classmethod
    def of(cls, scope: Scope) -> AgentCoreHeaders:
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        return cls(headers.get(SESSION_HEADER), headers.get(REQUEST_HEADER),
                   {name: value for name, value in headers.items() if name.startswith(CUSTOM_PREFIX)})

    def attributes(self) -> dict[str, str]:
        """The run span's attributes (none for a header that was not sent)."""
        named = {"session.id": self.session_id, "agentcore.request.id": self.request_id}
        return {key: value[:256] for key, value in named.items() if value}


class AgentCoreRequests:
    """ASGI middleware: each HTTP request and WebSocket reads AgentCore's headers into the span attributes of the
    runs it serves (in its own task: :data:`~strands_agui.server.observability.tracing.REQUEST_ATTRIBUTES`) and
    logs them with the route."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope.get("path") == PING:
            return await self.app(scope, receive, send)
        headers = AgentCoreHeaders.of(scope)
        if headers.request_id or headers.session_id:
            logger.info("%s %s: AgentCore request %s, session %s", scope.get("method", "WS"), scope.get("path"),
                        headers.request_id, headers.session_id)
        token = REQUEST_ATTRIBUTES.set(headers.attributes())
        try:
            await self.app(_as_json(scope), receive, send)
        finally:
            REQUEST_ATTRIBUTES.reset(token)


early_refusal.TRANSPARENT.add(AgentCoreRequests)  # a refused run has no span: its answer is the route's


def _as_json(scope: Scope) -> Scope:
    """An invocation without a ``Content-Type`` read as the JSON AgentCore passes through (one with another type is
    still the endpoint's 415)."""
    if scope["type"] != "http" or scope.get("path") != INVOCATIONS or any(
            name.lower() == b"content-type" for name, _ in scope["headers"]):
        return scope
    return {**scope, "headers": [*scope["headers"], (b"content-type", b"application/json")]}


@takes_settings(AppSettings)
def create_agentcore_app(agent: StrandsAgent | Any, *, settings: AppSettings | None = None,
                         environment: ServeEnvironment | None = None, **options: Unpack[AppOptions]) -> FastAPI:
    """A FastAPI app serving ``agent`` (a :class:`StrandsAgent`, or a ``strands.Agent`` it wraps) at AgentCore
    Runtime's paths: ``POST /invocations``, ``/ws`` and ``GET /ping`` (see the module docstring).

    ``settings`` and the keywords are :func:`~strands_agui.server.app.create_strands_app`'s (the endpoint's
    options, CORS, sessions, threads, API docs); ``health_path`` is not one: ``/ping`` is AgentCore's.
    ``environment``: what ``strands-agui serve`` set (default: read once, here)."""
    if not isinstance(agent, StrandsAgent):
        agent = StrandsAgent(agent)
    settings = replace(settings_with(settings or AppSettings(), dict(options), "create_agentcore_app"),
                       health_path=None)
    environment = ServeEnvironment.from_env() if environment is None else environment
    app = create_strands_app(agent, INVOCATIONS, settings=settings, environment=environment)
    served = served_agent(app.state.strands_agui_app.agent, settings, environment)
    name = settings.name or served.name
    app.add_api_route(PING, _ping, methods=["GET"], name="agentcore_ping",
                      summary="AgentCore's health check: Healthy, or HealthyBusy while runs are in flight")
    endpoint = served_endpoint(app, INVOCATIONS)  # its runs' span and metrics, its admission control: /ws's too

    async def socket(websocket: WebSocket) -> None:
        """Runs over one WebSocket: a RunAgentInput in, its events out (``server/agentcore/socket_runs.py``)."""
        await serve_socket(websocket, served, settings, endpoint.observability, _log_run,
                           admission=endpoint.admission)

    app.add_api_websocket_route(SOCKET, socket, name=f"{name}_ws", dependencies=settings.route_dependencies)
    app.add_middleware(AgentCoreRequests)
    return app


def agentcore_app_for(target: Any, spec: str) -> FastAPI:
    """The AgentCore app of what ``--app`` names (``spec``): a :class:`StrandsAgent`, a ``strands.Agent``, or an
    app of :func:`create_strands_app` (its agent with its settings); ``TypeError`` with one line otherwise."""
    if isinstance(target, StrandsAgent):
        return create_agentcore_app(target)
    if hasattr(target, "stream_async") and callable(target.stream_async):
        return create_agentcore_app(StrandsAgent(target))
    served = getattr(getattr(target, "state", None), "strands_agui_app", None)
    if isinstance(served, ServedApp) and len(console_entries(target)) == 1:
        return create_agentcore_app(served.agent, settings=served.settings)
    if isinstance(served, ServedApp):
        raise TypeError(f"{spec} serves {len(console_entries(target))} endpoints: AgentCore serves one agent; name "
                        "its StrandsAgent (MODULE:ATTR) instead")
    raise TypeError(f"{spec} is a {type(target).__name__}: AgentCore serves one agent; name a StrandsAgent, a "
                    "strands.Agent, or an app made by create_strands_app(agent)")


async def _ping() -> dict[str, str | int]:
    """``{"status": "Healthy" | "HealthyBusy", "time_of_last_update": <epoch seconds>}``."""
    return ping_body()


def _log_run(input_data: RunAgentInput) -> None:
    logger.info("WS run %s on thread %s", input_data.run_id, input_data.thread_id)
