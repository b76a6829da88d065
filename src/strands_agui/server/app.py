"""An app around one endpoint: :func:`create_strands_app` (the agent at ``POST path``, a health route, CORS,
API docs), :func:`add_ping`, :func:`without_api_docs`. The endpoint itself is ``server/endpoint.py``."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from ..environment import ServeEnvironment
from ..runtime.adapter import StrandsAgent
from .endpoint import add_strands_fastapi_endpoint
from .settings import UNSET, AppOptions, AppSettings, settings_with, takes_settings

__all__ = ["ALIASES", "ServedApp", "add_ping", "app_agent", "create_strands_app", "without_api_docs"]


@takes_settings(AppSettings)
def create_strands_app(agent: StrandsAgent, path: str = "/", health_path: str | None = UNSET, *,
                       settings: AppSettings | None = None, origins: Sequence[str] | None = None,
                       ping_path: str | None = UNSET, environment: ServeEnvironment | None = None,
                       **options: Unpack[AppOptions]) -> FastAPI:
    """A FastAPI app that serves ``agent`` at ``POST path`` (see :func:`add_strands_fastapi_endpoint`), with
    ``GET health_path`` returning ``{"status": "ok"}`` (default ``/ping``; None: no health route).

    ``settings`` (see :class:`AppSettings`: the endpoint's settings, CORS, sessions, API docs) with any field
    given as a keyword of its own instead. ``ag_ui_strands``' keyword names are accepted as aliases
    (:data:`ALIASES`): ``origins=`` for ``cors_origins`` and ``ping_path=`` for ``health_path`` (one of each
    pair, not both). ``environment``: see :func:`add_strands_fastapi_endpoint` (read once, here, by default).
    """
    settings = settings_with(settings or AppSettings(), _resolve_aliases(health_path, ping_path, origins, options),
                             "create_strands_app")
    agent = app_agent(agent, settings)
    app = FastAPI(title=agent.name, description=agent.description)
    if not settings.api_docs:
        without_api_docs(app)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST"],
                           allow_headers=["*"])
    if settings.health_path is not None:
        add_ping(app, settings.health_path)
    add_strands_fastapi_endpoint(app, agent, path, settings=settings,
                                 environment=ServeEnvironment.from_env() if environment is None else environment)
    app.state.strands_agui_app = ServedApp(agent, path, settings)
    return app


@dataclass(frozen=True)
class ServedApp:
    """What :func:`create_strands_app` built an app around (``app.state.strands_agui_app``): its agent (with the
    app's sessions and threads), the endpoint's path and the settings (``strands-agui serve --agentcore`` serves the
    same agent with the same settings the AgentCore way)."""

    agent: StrandsAgent
    path: str
    settings: AppSettings


def app_agent(agent: StrandsAgent, settings: AppSettings) -> StrandsAgent:
    """``agent`` with the app's ``sessions`` and ``threads`` (a copy when they change it)."""
    if settings.sessions is not None or settings.threads:
        agent = copy.copy(agent)
        agent.sessions = settings.sessions or agent.sessions
        agent.threads = agent.threads or settings.threads
    return agent


def add_ping(app: FastAPI, path: str = "/ping") -> None:
    """``GET path`` -> ``{"status": "ok"}``, unauthenticated (health probes, Bedrock AgentCore's ``/ping``)."""
    app.add_api_route(path, _health, methods=["GET"], name="health")


ALIASES: dict[str, str] = {"origins": "cors_origins", "ping_path": "health_path"}
"""``ag_ui_strands`` keyword of ``create_strands_app`` -> ours, with the same meaning."""


def _resolve_aliases(health_path: str | None, ping_path: str | None, origins: Sequence[str] | None,
                     options: AppOptions) -> dict[str, Any]:
    """``options`` with ``health_path`` (or its alias ``ping_path``) and ``origins`` as ``cors_origins``."""
    resolved: dict[str, Any] = dict(options)
    if ping_path is not UNSET:
        if health_path is not UNSET:
            raise TypeError("create_strands_app(): pass health_path or its alias ping_path, not both")
        health_path = ping_path
    if health_path is not UNSET:
        resolved["health_path"] = health_path
    if origins is not None:
        if resolved.get("cors_origins"):
            raise TypeError("create_strands_app(): pass cors_origins or its alias origins, not both")
        resolved["cors_origins"] = origins
    return resolved


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
