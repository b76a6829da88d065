"""``strands-agui serve`` sends a stream's frames at once whatever ``--workers``: every accepted connection has
``TCP_NODELAY``. uvicorn's own listener for several workers (and for its reloader) left it off (uvicorn issue
3149: the socket's ``proto`` is 0, and asyncio sets ``TCP_NODELAY`` only for ``IPPROTO_TCP``), so Nagle's
algorithm held each run's small frames until the client's delayed ACK, ~43 ms on Linux."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest
import uvicorn

from strands_agui.tooling.serving import tcp_listener
from tests.support.workers import serve


async def _accepted_nodelay(listener: socket.socket) -> int:
    """TCP_NODELAY of a connection asyncio accepts on ``listener``."""
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[int] = loop.create_future()

    class Report(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    listener.listen()
    server = await loop.create_server(Report, sock=listener)
    async with server:
        _, writer = await asyncio.open_connection(*listener.getsockname()[:2])
        value = await asyncio.wait_for(seen, 5)
        writer.close()
    return value


async def test_the_listener_uvicorn_binds_accepts_connections_with_nodelay_once_marked_tcp() -> None:
    config = uvicorn.Config("tests.support.nodelay_app:app", host="127.0.0.1", port=0, log_level="warning")
    listener = tcp_listener(config.bind_socket())
    assert listener.proto == socket.IPPROTO_TCP and listener.get_inheritable()
    assert await _accepted_nodelay(listener) == 1


def test_a_unix_or_already_tcp_socket_is_left_as_it_is() -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
        assert tcp_listener(unix) is unix
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as tcp:
        assert tcp_listener(tcp) is tcp


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_serve_sets_nodelay_on_every_connection_whatever_the_workers(tmp_path: Path, workers: int) -> None:
    with serve(tmp_path / "sessions", workers, "tests.support.nodelay_app:app") as url:
        with httpx.Client(base_url=url) as client:
            answers = [client.get("/nodelay").json() for _ in range(4)]  # whichever worker answers
    assert all(answer and set(answer) == {1} for answer in answers), answers
