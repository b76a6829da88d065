"""The endpoint's wiring: one POST route that streams a :class:`StrandsAgent` run as AG-UI over SSE, and the
routes beside it (capabilities, threads, resumable runs' reconnect and cancel, metrics). What each part does
lives in its own package (``request/``, ``transport/``, ``resumable/``, ``observability/``, ``console/``); an app
around one endpoint is ``server/app.py``.

Everything HTTP is FastAPI's own machinery; this module only decides what to stream.

* **Framing.** The route returns a :class:`~strands_agui.server.transport.streaming.RunStream`, a Starlette
  ``StreamingResponse`` that iterates the run in the request's own task and writes one frame per AG-UI
  event: ``ag_ui.encoder.EventEncoder`` frames (``data: <json>\\n\\n``, LF only, as ``@ag-ui/client``
  requires), with the ``Cache-Control: no-cache`` and ``X-Accel-Buffering: no`` headers. FastAPI's own
  generator SSE path is not used: it adds a producer task, two memory streams and a timer per frame.
  With ``protobuf`` installed, an Accept header that prefers ``application/vnd.ag-ui.event+proto`` gets
  the AG-UI protobuf framing instead (``negotiation.py`` picks, ``proto/`` encodes; SSE wins a tie).
  Frames that come faster than one per ``coalesce_seconds`` (50 ms) share one write (see ``streaming``).
* **Keep-alive.** After ``keepalive_seconds`` without a frame, a ``: ping`` comment
  (``fastapi.sse.KEEPALIVE_COMMENT``). Per endpoint, with no timer per event: see ``streaming``.
* **Settings** (``settings.py``). Each option is a field of :class:`EndpointSettings` /
  :class:`AppSettings`, passed as ``settings=`` or as a keyword of its own; the defaults live there.
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
* **Observability** (``observability.py``): with a tracer provider installed, each run is an OpenTelemetry
  span current while the run is iterated, so Strands' spans are its children; with ``metrics``, Prometheus
  metrics at ``GET /metrics``. Neither costs anything per event when off (``docs/observability.md``).
* **The heap after startup** (:func:`freeze_after_startup`). Once the app's lifespan has started, the objects
  alive then (modules, the app, the template agents) are moved out of the garbage collector's generations
  (``gc.freeze()``), so the collections a run's allocations trigger no longer scan them; at shutdown they are
  handed back (``gc.unfreeze()``). In process, a chat run's GC time went from 0.87 to 0.29 ms
  (``docs/benchmarks.md``).
"""

from __future__ import annotations

import contextlib
import copy
import gc
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Annotated, Any, Unpack

from ag_ui.core import RunAgentInput, Tool
from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from ..environment import ServeEnvironment
from ..runtime.adapter import StrandsAgent
from ..runtime.capabilities import capabilities
from .console.inspector import inspected_run, wants_inspection
from .console.page import list_in_console
from .observability.metrics import AgentMetrics, add_metrics_route
from .observability.observation import Observability
from .request import early_refusal
from .request.admission import Admission, AdmissionPolicy, LoopLimit, loop_limit, serve_policy
from .request.negotiation import negotiate, produced_media_types
from .request.openapi import RUN_RESPONSES, document_message_roles
from .request.principals import principal_of
from .request.validation import run_route, validated_run_input
from .resumable.run_routes import Resumable, add_run_routes, resumable_runs
from .settings import EndpointOptions, EndpointSettings, settings_with, takes_settings
from .threads_api import add_thread_routes
from .transport.inflight import IN_FLIGHT
from .transport.pacing import Pacer
from .transport.proto import PROTO_MEDIA_TYPE
from .transport.streaming import FRAMINGS, RunStream
from .transport.versions import rewrite_for, rewritten

__all__ = ["ServedEndpoint", "add_ready_route", "add_strands_fastapi_endpoint", "served_agent", "served_endpoint"]


# ----------------------------------------------------------------------------- public API


@takes_settings(EndpointSettings)
def add_strands_fastapi_endpoint(app: FastAPI, agent: StrandsAgent, path: str = "/", *,
                                 settings: EndpointSettings | None = None, environment: ServeEnvironment | None = None,
                                 **options: Unpack[EndpointOptions]) -> None:
    """Register ``POST path``: a RunAgentInput body in, the run's AG-UI events out as SSE (or the protobuf
    framing, when the Accept header prefers it and ``protobuf`` is installed), and ``GET path/capabilities``.

    ``settings`` (see :class:`EndpointSettings`: authentication, limits, pacing, inspection, media fetching)
    with any field given as a keyword of its own instead. A request refused by ``auth`` or ``dependencies``, or
    answered 406, 413, 415 or 422, never starts a run. A started run streams with status 200 and ends with
    one RUN_FINISHED or RUN_ERROR, unless the client leaves first, which cancels it.

    ``environment`` is what ``strands-agui serve`` set (default: ``ServeEnvironment.from_env()``, read here, once):
    its ``--threads``, ``--resumable`` and ``--metrics`` turn those on for this endpoint too; its ``--no-admission``
    turns admission control off, its ``--max-runs N`` sets the ceiling of its policy.
    """
    settings = settings_with(settings or EndpointSettings(), dict(options), "add_strands_fastapi_endpoint")
    environment = ServeEnvironment.from_env() if environment is None else environment
    settings = replace(settings, admission=serve_policy(settings.admission, max_runs=environment.max_runs,
                                                        off=environment.no_admission))
    agent = served_agent(agent, settings, environment)
    runs = resumable_runs(settings.resumable, environment)
    freeze_after_startup(app)
    observability = _observability(app, agent, settings, environment)
    admission = _admission(settings, runs, observability)
    _add_run_route(app, agent, path, settings, runs, observability, admission)
    endpoints = getattr(app.state, "strands_agui_endpoints", None)
    if endpoints is None:
        endpoints = app.state.strands_agui_endpoints = {}
    endpoints[path] = ServedEndpoint(observability, admission)
    _add_capabilities_route(app, agent, path, settings, resumable=runs is not None)
    add_thread_routes(app, agent, path, settings, runs)
    if settings.admission is not None and settings.ready_path is not None:
        add_ready_route(app, settings.ready_path, settings.admission)
    if runs is not None:
        add_run_routes(app, path, runs, dependencies=settings.route_dependencies, name=settings.name or agent.name,
                       keepalive=settings.keepalive_seconds, coalesce=settings.coalesce_seconds,
                       reconnected=observability.reconnected)
    document_message_roles(app)
    list_in_console(app, console_entry(agent, path, settings, resumable=runs is not None))


def served_agent(agent: StrandsAgent, settings: EndpointSettings, environment: ServeEnvironment) -> StrandsAgent:
    """The agent as an endpoint serves it (a copy when it changes): the endpoint's ``invocation_state_provider``
    is its runs' (``runtime/invocation.py``), and ``serve --threads`` turns its threads on."""
    if settings.invocation_state_provider is not None:
        agent = copy.copy(agent)
        agent.config = replace(agent.config, invocation_state_provider=settings.invocation_state_provider)
    if environment.threads and not agent.threads:
        agent = copy.copy(agent)
        agent.threads = True
    return agent


def console_entry(agent: StrandsAgent, path: str, settings: EndpointSettings, *, resumable: bool = False
                  ) -> dict[str, Any]:
    """What the console (``mount_console``) lists for the endpoint: its name and description, and from its
    settings the prompts it suggests, the frontend tools the page declares, the state a new thread starts with;
    whether it keeps threads, and whether its runs are resumable (then Stop cancels a run by its cancel route:
    closing a resumable run's stream leaves it running for a reconnect)."""
    return {
        "path": path,
        "name": settings.name or agent.name,
        "description": agent.description or "",
        "frontendTools": [Tool.model_validate(tool).model_dump(mode="json", by_alias=True, exclude_none=True)
                          for tool in settings.frontend_tools],
        "initialState": dict(settings.initial_state or {}),
        "prompts": list(settings.prompts),
        "threads": agent.threads,
        "resumable": resumable,
    }


def freeze_after_startup(app: FastAPI) -> None:
    """Wrap ``app``'s lifespan (once per app): after its startup, ``gc.collect()`` then ``gc.freeze()``, so the
    heap built at startup is never scanned again by the collections runs trigger; ``gc.unfreeze()`` after its
    shutdown. Each uvicorn worker runs its own lifespan, so each freezes its own heap."""
    router = app.router
    if getattr(router.lifespan_context, "freezes_heap", False):
        return
    starting = router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(served: Any) -> AsyncIterator[Any]:
        async with starting(served) as state:
            gc.collect()
            gc.freeze()
            try:
                yield state
            finally:
                gc.unfreeze()

    lifespan.freezes_heap = True  # type: ignore[attr-defined]
    router.lifespan_context = lifespan


def _observability(app: FastAPI, agent: StrandsAgent, settings: EndpointSettings,
                   environment: ServeEnvironment) -> Observability:
    """The endpoint's span per run (when a tracer provider is installed) and metrics (``GET metrics_path``)."""
    name = settings.name or agent.name
    metrics = None
    if settings.metrics or environment.metrics:
        add_metrics_route(app, settings.metrics_path, multiprocess=environment.metrics_directory is not None)
        metrics = AgentMetrics(name)
    return Observability(name, tracing=settings.tracing, metrics=metrics)


@dataclass(frozen=True)
class ServedEndpoint:
    """What the runs of an endpoint share with another transport serving its agent (AgentCore's ``/ws``): their
    observation (a span, the endpoint's metrics) and its admission control (None: off)."""

    observability: Observability
    admission: Admission | None


def served_endpoint(app: FastAPI, path: str) -> ServedEndpoint:
    """The endpoint :func:`add_strands_fastapi_endpoint` added to ``app`` at ``path``."""
    endpoints: dict[str, ServedEndpoint] = getattr(app.state, "strands_agui_endpoints", None) or {}
    if path not in endpoints:
        raise LookupError(f"no strands-agui endpoint at {path!r} in this app")
    return endpoints[path]


def _add_run_route(app: FastAPI, agent: StrandsAgent, path: str, settings: EndpointSettings,
                   runs: Resumable | None, observability: Observability, admission: Admission | None) -> None:
    async def run_agent(
        request: Request,
        media_type: Annotated[str, Depends(negotiate)],  # 415, 406: before the body's 422
        input_data: RunAgentInput,  # the body: FastAPI's 422 (its ``loc`` names the field)
    ) -> RunStream:
        """The run, streamed in the framing the Accept header chose. Runs only once every dependency has
        passed and the input is valid (what its schema cannot say: checked here, not in a dependency of its own:
        FastAPI solves each dependency at some 25 us a request). The request reaches the
        ``invocation_state_provider``; the run yields to the event loop after each Strands event (``pace``, see
        ``streaming``: Fairness)."""
        input_data = await validated_run_input(input_data, request)  # 422: before anything of the run
        principal = principal_of(request)
        tap = await runs.start(input_data, principal) if runs is not None else None  # 409, 503: before the stream
        if runs is not None and tap is not None and agent.threads:  # the thread API's ``liveRun`` while it runs
            await runs.on_thread(input_data, principal)
        cancel = tap.cancel if tap is not None else None
        observation = observability.observe(input_data)  # None unless traced or measured
        on_move = observation.on_move if observation is not None else None
        pace = Pacer()  # one slice for the run and its stream (see ``streaming``: Fairness)
        events = (inspected_run(agent, input_data, request=request, pace=pace, cancel=cancel,
                                principal=principal, on_move=on_move)
                  if settings.inspect and wants_inspection(input_data)
                  else agent.run(input_data, request=request, pace=pace, cancel=cancel, principal=principal,
                                 on_move=on_move))
        keepalive, coalesce, framing = settings.keepalive_seconds, settings.coalesce_seconds, FRAMINGS[media_type]
        rewrite = rewrite_for(framing, input_data.protocol_version)  # the stream this client's generation gets
        if tap is not None:  # stores the 1.0 events; each reader gets them rewritten as its generation does
            return tap.stream(events, framing, rewrite, keepalive=keepalive, coalesce=coalesce,
                              observation=observation, pace=pace)
        return RunStream(events, framing=rewritten(framing, rewrite), keepalive=keepalive,
                         coalesce=coalesce, observation=observation, pace=pace)

    if admission is not None:  # serve's protocol refuses the run's POST before the app when it would
        early_refusal.register(app, path, admission)
    app.router.add_api_route(
        path, run_agent, methods=["POST"], response_class=RunStream, status_code=200,
        dependencies=settings.route_dependencies,
        route_class_override=run_route(settings.limits, settings.fetch_media, admission),
        name=settings.name or agent.name,
        summary=f"Run {agent.name}",
        description=agent.description or "Run the agent; AG-UI events stream back as SSE (or protobuf, by Accept).",
        responses=RUN_RESPONSES,
    )


def _admission(settings: EndpointSettings, runs: Resumable | None, observability: Observability) -> Admission | None:
    """The endpoint's admission control (``request/admission.py``): its refusals and limit in its metrics; a
    resumable endpoint's runs refused while their events could not be stored."""
    if settings.admission is None:
        return None
    metrics = observability.metrics

    def watch(limit: LoopLimit) -> None:
        if metrics is not None:
            metrics.admitting(limit.limit, limit.lag)

    return Admission(settings.admission, store_busy=runs.store_busy if runs is not None else None,
                     refused=metrics.refused if metrics is not None else None,
                     watch=watch if metrics is not None else None)


def add_ready_route(app: FastAPI, path: str, policy: AdmissionPolicy) -> None:
    """``GET path`` (once per app; unauthenticated, not in the OpenAPI document): 200 ``{"status": "ready"}`` while
    the worker answering admits new runs, 503 ``{"status": "saturated"}`` with ``Retry-After`` while it refuses them;
    both with ``inFlight`` and ``limit``. A balancer's readiness check (``docs/capacity.md``: nginx, Kubernetes)."""
    if any(getattr(route, "path", None) == path for route in app.router.routes):
        return

    async def ready() -> JSONResponse:
        """Whether this worker admits a new run now (admission control, ``request/admission.py``)."""
        limit = loop_limit(policy)
        body = {"inFlight": IN_FLIGHT.runs, "limit": limit.ceiling}
        if limit.saturated():
            return JSONResponse({"status": "saturated", **body}, status_code=503,
                                headers={"Retry-After": str(policy.retry_after)})
        return JSONResponse({"status": "ready", **body})

    app.add_api_route(path, ready, methods=["GET"], name="ready", include_in_schema=False)


def _add_capabilities_route(app: FastAPI, agent: StrandsAgent, path: str, settings: EndpointSettings, *,
                            resumable: bool) -> None:
    async def agent_capabilities() -> dict[str, Any]:
        """The agent's AG-UI ``AgentCapabilities`` (see ``runtime/capabilities.py``)."""
        served = capabilities(agent, resumable=resumable, http_binary=PROTO_MEDIA_TYPE in produced_media_types())
        return served.model_dump(mode="json", by_alias=True, exclude_none=True)

    app.add_api_route(f"{path.rstrip('/')}/capabilities", agent_capabilities, methods=["GET"],
                      dependencies=settings.route_dependencies,
                      name=f"{settings.name or agent.name}_capabilities", summary=f"What {agent.name} can do")
