"""A FastAPI app served by uvicorn on a free loopback port, for tests over real HTTP."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import uvicorn
from fastapi import FastAPI


class LiveServer:
    """uvicorn serving ``app`` on 127.0.0.1 (a free port) from a background thread with its own loop; ``http`` is
    uvicorn's HTTP protocol (h11 unless a test asks for another: httptools, or an import string)."""

    def __init__(self, app: FastAPI, *, send_buffer: int | None = None, http: str = "h11") -> None:
        self.sock = socket.socket()
        if send_buffer is not None:  # accepted connections inherit it: a reader that stops stalls us sooner
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        self.sock.bind(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, lifespan="off", log_level="warning", log_config=None, http=http,
                                timeout_graceful_shutdown=1)  # log_config=None: records reach caplog
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name=f"uvicorn-{self.port}", daemon=True)

    def _run(self) -> None:
        self.loop.run_until_complete(self.server.serve(sockets=[self.sock]))

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 5
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.005)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(5)
        self.loop.close()

    def tasks(self) -> set[asyncio.Task[Any]]:
        """Every task of the server's loop, except the one asking."""

        async def others() -> set[asyncio.Task[Any]]:
            return asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]

        return asyncio.run_coroutine_threadsafe(others(), self.loop).result(5)
