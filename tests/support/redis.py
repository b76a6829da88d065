"""A real redis-server for tests (Debian's, on a free loopback port, nothing persisted): started, killed and
restarted on the same port, frozen (SIGSTOP) and thawed."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from tests.support import processes
from tests.support.workers import free_port


def wait_for(check: Callable[[], Any], what: str, limit: float = 120) -> None:
    """Until ``check()`` is true (a refused connection counts as not yet); fails after ``limit`` seconds."""
    deadline = time.monotonic() + limit  # a loaded machine starts slowly; this bounds a hang, not speed
    while True:
        try:
            if check():
                return
        except (httpx.TransportError, OSError):
            pass
        assert time.monotonic() < deadline, f"{what} did not start"
        time.sleep(0.05)


class RedisServer:
    """redis-server on ``port`` (nothing persisted: a restart loses every key)."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        self.proc = processes.start(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(self.pong, "redis-server")
        except BaseException:
            self.stop()
            raise
        return self

    def pong(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGCONT)  # a frozen server cannot act on SIGTERM
            processes.stop(self.proc)
        self.proc = None

    def restart(self) -> None:
        """Stop it and start it again on the same port: every key is gone."""
        self.stop()
        self.start()

    def freeze(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A started :class:`RedisServer`, stopped at the end."""
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.stop()
