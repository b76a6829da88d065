"""How an endpoint and an app serve their agent: the one place the server's options and their defaults live.

:class:`EndpointSettings` is what :func:`~strands_agui.server.endpoint.add_strands_fastapi_endpoint` takes,
:class:`AppSettings` (an ``EndpointSettings`` plus the app's own options) what
:func:`~strands_agui.server.app.create_strands_app` takes. Both functions also accept each field as a
keyword (``create_strands_app(agent, cors_origins=[...], max_messages=50)``), which overrides the same field
of a ``settings=`` object; :func:`takes_settings` makes their signatures list those keywords, with the
defaults written here.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from ag_ui.core import Tool
from fastapi import Depends, params

from ..config import InvocationStateProvider, MediaFetchPolicy
from ..runtime.storage.sessions import SessionStore
from .observability.metrics import DEFAULT_METRICS_PATH
from .request.admission import AdmissionPolicy
from .request.principals import principal_dependency
from .request.validation import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_MESSAGES, RequestLimits
from .resumable.run_routes import Resumable
from .transport.streaming import COALESCE_SECONDS

DEFAULT_KEEPALIVE_SECONDS = 15.0
DEFAULT_READY_PATH = "/ready"


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()
"""The default of a parameter that, when not given, leaves the settings' field as it is."""

_Settings = TypeVar("_Settings", bound="EndpointSettings")
_Function = TypeVar("_Function", bound=Callable[..., Any])


@dataclass(frozen=True, kw_only=True)
class EndpointSettings:
    """How ``POST path`` serves its agent.

    ``auth`` (a FastAPI dependency callable that raises ``HTTPException`` to refuse, ``ag_ui_strands``' name)
    and then ``dependencies`` (e.g. ``[Depends(verify_token)]``) run first; a request they refuse never starts
    a run. What ``auth`` returns, when it is a ``str``, is the caller's principal: threads (their pauses) are
    the principal's own, another principal's request on the same ``threadId`` is another thread
    (``server/request/principals.py``; None: the anonymous principal). ``invocation_state_provider(request,
    input_data)``
    (sync or async) returns a dict of trusted, request-scoped values handed to Strands as ``invocation_state``
    (a copy per run), or None. It is the run's
    ``StrandsAgentConfig.invocation_state_provider``: one that fails ends the run with ``INVOCATION_STATE_ERROR``.
    The limits (``max_body_bytes``, ``max_messages``, ``max_depth``) are described in :class:`RequestLimits`.
    ``keepalive_seconds`` is the longest silence before a ``: ping`` comment. ``coalesce_seconds`` is the longest
    a frame waits to share one write with the frames after it (only while frames come faster than that; the first
    and the terminal frame never wait; at most ``keepalive_seconds``; 0: one write per frame; see
    ``server/transport/streaming.py``). ``name`` names the route (default: the agent's name). ``inspect=True`` lets a
    request
    ask for the run's machine trace and replayable log as CUSTOM events (``server.console.inspector``; development
    servers only: it shows the raw Strands events). ``fetch_media`` (off when None) lets image and document parts
    given by URL be fetched before the run, refusing private, loopback and link-local addresses
    (``server/request/media.py``); without it such a part is refused (422). ``resumable`` (``True``: events in
    memory; a :class:`~strands_agui.server.resumable.run_routes.Resumable` names the event store and
    ``detach_seconds``; also on, with the environment's store, under ``strands-agui serve --resumable``) numbers and
    stores every event, so a client can reconnect (``GET path/runs/{runId}/events`` with ``Last-Event-ID``) and
    cancel (``POST path/runs/{runId}/cancel``); see ``docs/transport.md``. ``tracing`` (on unless False) gives each
    run an OpenTelemetry span, with Strands' spans as its children, whenever a tracer provider is installed
    (``server/observability/tracing.py``). ``metrics`` (True; also on under ``strands-agui serve --metrics``)
    records Prometheus metrics of the runs and serves them at ``GET metrics_path``
    (``server/observability/metrics.py``, the ``observability`` extra); see ``docs/observability.md``. What
    ``serve`` sets is read once, when the endpoint is built (``environment.ServeEnvironment``). What the console
    (``mount_console``) lists for the
    endpoint besides its name and description: ``prompts`` it suggests trying, ``frontend_tools`` (AG-UI ``Tool``
    objects or their dicts) the page declares in each request, ``initial_state`` a new thread starts with.
    ``admission`` (on by default; None: off) refuses a new run (503 ``OVERLOADED``, ``Retry-After``) while this
    worker cannot serve it at its normal latency, the limit learned from the event loop's lag, and a resumable run
    while its events cannot be stored (``server/request/admission.py``, ``docs/capacity.md``); with it,
    ``GET ready_path`` (None: no such route) answers 200 while the worker answering admits runs, 503 while it
    refuses them: a balancer's readiness check.
    """

    auth: Callable[..., Any] | None = None
    dependencies: Sequence[params.Depends] | None = None
    invocation_state_provider: InvocationStateProvider | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_messages: int = DEFAULT_MAX_MESSAGES
    max_depth: int = DEFAULT_MAX_DEPTH
    keepalive_seconds: float = DEFAULT_KEEPALIVE_SECONDS
    coalesce_seconds: float = COALESCE_SECONDS
    name: str | None = None
    inspect: bool = False
    fetch_media: MediaFetchPolicy | None = None
    resumable: bool | Resumable = False
    tracing: bool = True
    metrics: bool = False
    metrics_path: str = DEFAULT_METRICS_PATH
    prompts: Sequence[str] = ()
    frontend_tools: Sequence[Tool | Mapping[str, Any]] = ()
    initial_state: Mapping[str, Any] | None = None
    admission: AdmissionPolicy | None = AdmissionPolicy()
    ready_path: str | None = DEFAULT_READY_PATH

    def __post_init__(self) -> None:
        _ = self.limits  # RequestLimits refuses a limit that is not a positive int
        if isinstance(self.prompts, str) or not all(isinstance(p, str) for p in self.prompts):
            raise TypeError(f"prompts must be a sequence of str, not {self.prompts!r}")
        for tool in self.frontend_tools:
            Tool.model_validate(tool)  # a ValidationError (a ValueError) names what the tool lacks
        if self.initial_state is not None and not isinstance(self.initial_state, Mapping):
            raise TypeError(f"initial_state must be a mapping, not {type(self.initial_state).__name__}")
        if not self.keepalive_seconds > 0:
            raise ValueError(f"keepalive_seconds must be positive, not {self.keepalive_seconds!r}")
        if not 0 <= self.coalesce_seconds < float("inf"):
            raise ValueError(f"coalesce_seconds must be a finite number >= 0, not {self.coalesce_seconds!r}")
        if self.admission is not None and not isinstance(self.admission, AdmissionPolicy):
            raise TypeError(f"admission must be an AdmissionPolicy or None, not {type(self.admission).__name__}")

    @property
    def limits(self) -> RequestLimits:
        return RequestLimits(self.max_body_bytes, self.max_messages, self.max_depth)

    @property
    def route_dependencies(self) -> list[params.Depends]:
        """What runs before the route: ``auth`` (its value recorded as the request's principal), then
        ``dependencies``."""
        scope = principal_dependency(self.auth)
        return [*([Depends(scope)] if scope is not None else ()), *(self.dependencies or ())]


@dataclass(frozen=True, kw_only=True)
class AppSettings(EndpointSettings):
    """An app serving one agent: its endpoint's settings, and ``GET health_path`` returning ``{"status": "ok"}``
    (unauthenticated; None: no health route).

    ``sessions`` is where the agent's paused runs wait for their resume (default: the agent's own, see
    :class:`~strands_agui.runtime.storage.sessions.FileSessions`). ``threads=True`` keeps each principal's threads on
    the server too, in the same store (``runtime/storage/threads.py``; also on when the agent's own setting or
    ``strands-agui serve --threads`` says so). CORS is off unless ``cors_origins`` is given. Then
    exactly those origins may call the app (GET and POST, any request header, no credentials); there is never a
    wildcard origin. ``api_docs=False`` removes ``/docs``, ``/redoc`` and ``/openapi.json`` (404).
    """

    health_path: str | None = "/ping"
    cors_origins: Sequence[str] = ()
    sessions: SessionStore | None = None
    threads: bool = False
    api_docs: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if "*" in self.cors_origins:
            raise ValueError("cors_origins must list origins; the '*' wildcard is not allowed")


class EndpointOptions(TypedDict, total=False):
    """The fields of :class:`EndpointSettings`, as keywords (for type checkers)."""

    auth: Callable[..., Any] | None
    dependencies: Sequence[params.Depends] | None
    invocation_state_provider: InvocationStateProvider | None
    max_body_bytes: int
    max_messages: int
    max_depth: int
    keepalive_seconds: float
    coalesce_seconds: float
    name: str | None
    inspect: bool
    fetch_media: MediaFetchPolicy | None
    resumable: bool | Resumable
    tracing: bool
    metrics: bool
    metrics_path: str
    prompts: Sequence[str]
    frontend_tools: Sequence[Tool | Mapping[str, Any]]
    initial_state: Mapping[str, Any] | None
    admission: AdmissionPolicy | None
    ready_path: str | None


class AppOptions(EndpointOptions, total=False):
    """The fields of :class:`AppSettings` a keyword can set (``health_path`` is a parameter of its own)."""

    cors_origins: Sequence[str]
    sessions: SessionStore | None
    threads: bool
    api_docs: bool


def settings_with(settings: _Settings, options: dict[str, Any], caller: str) -> _Settings:
    """``settings`` with the fields named by ``options`` replaced (a TypeError names any unknown one)."""
    unknown = sorted(set(options) - {field.name for field in dataclasses.fields(settings)})
    if unknown:
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    return dataclasses.replace(settings, **options) if options else settings


def takes_settings(settings_class: type[EndpointSettings]) -> Callable[[_Function], _Function]:
    """Give a function taking ``**options`` the signature it accepts: its own parameters (one named like a field
    shows the field's default, which it resolves to), then each other field of ``settings_class``, keyword-only
    with its default (for ``help()`` and IDEs)."""

    def decorate(function: _Function) -> _Function:
        defaults = {f.name: f.default for f in dataclasses.fields(settings_class)}
        own = [p.replace(default=defaults[p.name]) if p.name in defaults else p
               for p in inspect.signature(function).parameters.values() if p.kind is not p.VAR_KEYWORD]
        named = {p.name for p in own}
        fields = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
                  for f in dataclasses.fields(settings_class) if f.name not in named]
        function.__signature__ = inspect.signature(function).replace(parameters=[*own, *fields])  # type: ignore[attr-defined]
        return function

    return decorate
