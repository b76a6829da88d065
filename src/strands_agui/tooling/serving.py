"""``strands-agui serve``'s uvicorn: ``uvicorn.run``, with the listening socket of ``--workers N`` and ``--reload``
marked as TCP so that every accepted connection gets ``TCP_NODELAY``.

uvicorn binds the socket it hands to its workers (and to its reloader) with ``socket.socket(family)``, whose
``proto`` is 0; accepted sockets inherit it, and asyncio sets ``TCP_NODELAY`` only on a socket whose ``proto`` is
``IPPROTO_TCP``. Nagle's algorithm then holds a stream's small frames until the client's delayed ACK: with two
workers every run's RUN_STARTED reached the client ~43 ms late (1.4 ms with one worker, whose socket asyncio builds
from ``getaddrinfo``). uvicorn issue 3149, open at 0.54. The socket here is the one uvicorn binds, re-wrapped
with ``IPPROTO_TCP`` (the same file descriptor, address and options).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

__all__ = ["run_uvicorn", "tcp_listener"]


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
    listening socket of the first two made by :func:`tcp_listener`."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import ChangeReload, Multiprocess

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
