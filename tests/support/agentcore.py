"""Clients of AgentCore Runtime's AG-UI contract (``/invocations``, ``/ws``, ``/ping``) as its proxy calls a
container: the headers it adds, a WebSocket read in either framing (bare JSON, or the SDK's ``data: {json}``),
a raw socket that sees the protocol's ping frames, and the contract's servers as processes."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Opcode
from websockets.sync.client import ClientConnection, connect
from websockets.uri import parse_uri

from tests.support.workers import free_port, serve, serving

ROOT = Path(__file__).resolve().parent.parent.parent
SESSION = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"
REQUEST = "X-Amzn-Bedrock-AgentCore-Runtime-Request-Id"
APP = "tests.support.agentcore_apps:agent"
TERMINAL = ("RUN_FINISHED", "RUN_ERROR")


def agentcore_headers(session: str, request: str = "req-1", **extra: str) -> dict[str, str]:
    """What AgentCore's proxy adds to an invocation (no ``Accept``: the devguide's own curl sends none)."""
    return {SESSION: session, REQUEST: request, "Content-Type": "application/json", **extra}


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://", 1) + "/ws"


def event_of(message: str | bytes) -> dict[str, Any]:
    """One text frame's event: bare JSON (ours) or the SDK's ``data: {json}\\n\\n``."""
    text = message.decode() if isinstance(message, bytes) else message
    text = text.strip()
    return json.loads(text[len("data:"):] if text.startswith("data:") else text)


class Socket:
    """A WebSocket to ``/ws`` (AgentCore's headers on its upgrade): runs sent and read to their terminal event."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.frames: list[str] = []  # every text frame, as sent

    def send(self, body: dict[str, Any] | str) -> None:
        self.connection.send(body if isinstance(body, str) else json.dumps(body))

    def run(self, body: dict[str, Any] | str | None, *, cancel_after: int | None = None) -> list[dict[str, Any]]:
        """Send ``body`` (None: send nothing), read to the terminal event; ``cancel_after``: send
        ``{"type": "cancel"}`` once that many events came."""
        if body is not None:
            self.send(body)
        events: list[dict[str, Any]] = []
        while not events or events[-1]["type"] not in TERMINAL:
            message = self.connection.recv(timeout=30)
            assert isinstance(message, str), f"a binary frame: {message!r}"
            self.frames.append(message)
            events.append(event_of(message))
            if cancel_after is not None and len(events) == cancel_after:
                self.send({"type": "cancel"})
        return events

    def closed(self, timeout: float = 10) -> tuple[int | None, str]:
        """The close code and reason the server sent (after reading whatever came before: it must be nothing);
        1006 when the connection dropped without a close frame."""
        extra: list[str] = []
        try:
            while True:
                extra.append(str(self.connection.recv(timeout=timeout)))
        except ConnectionClosed as exc:
            assert not extra, extra
            received = exc.rcvd
            return (received.code, received.reason) if received is not None else (1006, "")


@contextmanager
def socket_to(base: str, headers: dict[str, str] | None = None) -> Iterator[Socket]:
    with connect(ws_url(base), additional_headers=headers or {}, open_timeout=10, max_size=None) as connection:
        yield Socket(connection)


def frames_until_text(base: str, body: dict[str, Any], seconds: float, texts: int = 1) -> list[Opcode]:
    """The opcodes of the frames a raw socket receives, in order, until ``texts`` text frames came (at most
    ``seconds``): the protocol's pings are frames no WebSocket library shows."""
    protocol = ClientProtocol(parse_uri(ws_url(base)))
    raw = socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=seconds)
    opcodes: list[Opcode] = []
    try:
        protocol.send_request(protocol.connect())
        raw.sendall(b"".join(protocol.data_to_send()))
        sent = False
        deadline = time.monotonic() + seconds
        while opcodes.count(Opcode.TEXT) < texts and time.monotonic() < deadline:
            protocol.receive_data(raw.recv(65536))
            opcodes += [event.opcode for event in protocol.events_received() if hasattr(event, "opcode")]
            if not sent and protocol.handshake_exc is None and protocol.state.name == "OPEN":
                protocol.send_text(json.dumps(body).encode())
                sent = True
            raw.sendall(b"".join(protocol.data_to_send()))  # the pongs too
    finally:
        raw.close()
    return opcodes


@contextmanager
def reference_server() -> Iterator[str]:
    """The AgentCore SDK's ``AGUIApp`` around ``ag_ui_strands`` (``tests/support/agentcore_apps.py``), in its own
    process group on a free loopback port; its base URL once ``/ping`` answers."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    with serving([sys.executable, "-m", "tests.support.agentcore_apps", "--port", str(port)], port, env) as (url, _):
        yield url


@contextmanager
def our_server(sessions: Path, *extra: str) -> Iterator[str]:
    """``strands-agui serve --agentcore`` of the contract's agent on loopback (``--host 127.0.0.1``)."""
    with serve(sessions, 1, APP, "--agentcore", "--host", "127.0.0.1", *extra,
               env={"PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}) as url:
        yield url


def ping(base: str) -> dict[str, Any]:
    response = httpx.get(f"{base}/ping", timeout=5)
    assert response.status_code == 200 and response.headers["content-type"] == "application/json", response.text
    return response.json()
