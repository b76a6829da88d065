"""An app for ``strands-agui serve --app tests.support.nodelay_app:app``: ``GET /nodelay`` answers, for every TCP
connection the serving process has accepted and still holds, whether ``TCP_NODELAY`` is set on its socket (found
among the process's asyncio transports: ASGI gives an app no socket)."""

from __future__ import annotations

import asyncio
import gc
import socket

from fastapi import FastAPI

from strands_agui.server.app import add_ping

app = FastAPI()
add_ping(app)


@app.get("/nodelay")
async def nodelay() -> list[int]:
    found = []
    for obj in gc.get_objects():
        if isinstance(obj, asyncio.Transport) and not obj.is_closing():
            sock = obj.get_extra_info("socket")
            if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
                found.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    return found
