"""``strands-agui serve``'s uvicorn: ``uvicorn.run``, with the listening socket of ``--workers N`` and ``--reload``
marked as TCP so that every accepted connection gets ``TCP_NODELAY``.

uvicorn binds the socket it hands to its workers (and to its reloader) with ``socket.socket(family)``, whose
``proto`` is 0; accepted sockets inherit it, and asyncio sets ``TCP_NODELAY`` only on a socket whose ``proto`` is
``IPPROTO_TCP``. Nagle's algorithm then holds a stream's small frames until the client's delayed ACK: with two
workers every run's RUN_STARTED reached the client ~43 ms late (1.4 ms with one worker, whose socket asyncio builds
from ``getaddrinfo``). uvicorn issue 3149, open at 0.54. The socket here is the one uvicorn binds, re-wrapped
with ``IPPROTO_TCP`` (the same file descriptor, address and options).

``serve --agentcore`` (:func:`agentcore_serving`): the agent ``--app`` names, served at AgentCore Runtime's paths
(``server/agentcore``) on ``0.0.0.0:8080`` unless ``--host``/``--port`` say otherwise, with WebSocket pings every
keep-alive period (a silent run's ``/ws`` has no frame of its own to send).

Its HTTP protocol is uvicorn's httptools one, answering a run refused for load before the app
(``server/request/early_refusal.py``: a refusal costs the worker under a third of its CPU through the app).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

__all__ = ["agentcore_app", "agentcore_serving", "run_uvicorn", "serve_address", "tcp_listener"]

AGENTCORE_APP_ENV = "STRANDS_AGUI_AGENTCORE_APP"  # what a `serve --agentcore` worker serves (see agentcore_app)
AGENTCORE_NO_DOCS_ENV = "STRANDS_AGUI_AGENTCORE_NO_DOCS"
AGENTCORE_HOST, AGENTCORE_PORT = "0.0.0.0", 8080  # AgentCore's contract: every interface of the container
HOST, PORT = "127.0.0.1", 8000


def tcp_listener(sock: socket.socket) -> socket.socket:
    """``sock`` (a bound TCP or Unix socket) with ``proto`` set to ``IPPROTO_TCP`` when it is TCP, so asyncio sets
    ``TCP_NODELAY`` on the connections it accepts; the same file descriptor, still inheritable."""
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.proto == socket.IPPROTO_TCP:
        return sock
    tcp = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    tcp.set_inheritable(True)
    return tcp


def run_uvicorn(app: Any, **options: Any) -> None:
    """``uvicorn.run(app, **options)`` (its branches for a reloader, several workers and one process), the
    listening socket of the first two made by :func:`tcp_listener`. On asyncio's own event loop even where uvloop
    is installed (uvicorn's ``loop="auto"`` would take it): admission control's lag threshold is measured on
    asyncio's loop, and under uvloop the same threshold let served runs' p99 reach 2.2-2.6x their unloaded p99 and
    refusals' p99 0.3-1.6 s past saturation (``docs/capacity.md``)."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import ChangeReload, Multiprocess

    from ..server.request.early_refusal import PROTOCOL as EARLY_REFUSALS

    options.setdefault("loop", "asyncio")
    options.setdefault("http", EARLY_REFUSALS)  # uvicorn's httptools protocol, refusing a run before the app
    config = uvicorn.Config(app, **options)
    if not (config.reload or config.workers > 1):
        config.load_app()
    server = uvicorn.Server(config=config)
    try:
        if config.should_reload:
            ChangeReload(config, target=server.run, sockets=[tcp_listener(config.bind_socket())]).run()
        elif config.workers > 1:
            Multiprocess(config, sockets=[tcp_listener(config.bind_socket())]).run()
        else:
            server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if config.uds and os.path.exists(config.uds):
            os.remove(config.uds)
    if not server.started and not config.should_reload and config.workers == 1:
        sys.exit(STARTUP_FAILURE)  # as uvicorn.run exits


def serve_address(args: Any) -> None:
    """``--host`` and ``--port``, or their defaults: AgentCore's contract with ``--agentcore``, loopback otherwise."""
    if args.host is None:
        args.host = AGENTCORE_HOST if args.agentcore else HOST
    if args.port is None:
        args.port = AGENTCORE_PORT if args.agentcore else PORT


def agentcore_serving(args: Any) -> tuple[Any, bool, dict[str, Any]]:
    """``serve --agentcore``: the AgentCore app of ``--app`` (checked here, in this process: a one-line error), the
    name of its factory when uvicorn imports it in each worker or reload, and uvicorn's WebSocket ping period."""
    from importlib.util import find_spec

    from ..server.app import without_api_docs
    from ..server.settings import DEFAULT_KEEPALIVE_SECONDS
    from .cli_checks import CliError
    from .cli_parser import DEFAULT_APP

    if args.app == DEFAULT_APP:
        raise CliError("--agentcore serves one agent: name it with --app MODULE:ATTR (a StrandsAgent, a strands.Agent "
                       "or an app of create_strands_app)")
    if find_spec("websockets") is None and find_spec("wsproto") is None:
        raise CliError("--agentcore serves /ws, and uvicorn has no WebSocket library here: "
                       "pip install 'strands-agui[agentcore]'")
    app = _agentcore_app(args.app)
    options = {"ws_ping_interval": DEFAULT_KEEPALIVE_SECONDS}
    if args.workers > 1 or args.reload:  # uvicorn imports it itself, in each worker or reload
        os.environ[AGENTCORE_APP_ENV] = args.app
        os.environ[AGENTCORE_NO_DOCS_ENV] = "1" if args.no_docs else ""
        return f"{__name__}:agentcore_app", True, options
    return (without_api_docs(app) if args.no_docs else app), False, options


def agentcore_app() -> Any:
    """uvicorn's factory for ``serve --agentcore`` with ``--workers N`` or ``--reload``: the AgentCore app of
    ``$STRANDS_AGUI_AGENTCORE_APP`` (without its API docs under ``--no-docs``)."""
    from ..server.app import without_api_docs

    app = _agentcore_app(os.environ[AGENTCORE_APP_ENV])
    return without_api_docs(app) if os.environ.get(AGENTCORE_NO_DOCS_ENV) else app


def _agentcore_app(spec: str) -> Any:
    from ..server.agentcore.contract import agentcore_app_for
    from .cli_checks import CliError, load_object

    try:
        return agentcore_app_for(load_object(spec, "agent"), spec)
    except TypeError as exc:
        raise CliError(str(exc)) from None
