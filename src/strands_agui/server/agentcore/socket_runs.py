"""AgentCore's ``/ws``: runs over one WebSocket, each driven by the transport's own
:class:`~strands_agui.server.transport.driver.RunDriver` (the same phases, cancellation, unwinding and pacing as
SSE) writing to a :class:`SocketSink`.

The conversation on a socket:

* **In** (text frames): a RunAgentInput as a JSON object, bare or in the AgentCore SDK's SSE-like framing
  (``data: {json}``); ``{"type": "cancel"}`` while a run is in flight. A RunAgentInput is checked exactly as the
  run route checks a body (size, strict JSON, schema, what the schema cannot say, media URLs): a bad one closes the
  socket with 1003 and a reason of at most 123 bytes (RFC 6455's limit on a close frame's reason), a message over
  ``max_body_bytes`` with 1009, a binary frame with 1003, a second RunAgentInput while a run is in flight with 1008.
* **Out**: one AG-UI event per text frame, bare JSON (``encode_event``: camelCase, no nulls), for the client's
  declared ``protocolVersion`` as on SSE. Not the SDK's ``data: {json}\\n\\n``: a WebSocket message is already a
  frame, and a bare object is what any client's ``JSON.parse`` of a message reads.
* **End**: after a run whose RUN_FINISHED waits for the client (outcome ``interrupt``, or ``pendingToolCallIds``
  of frontend tools), the socket stays open for the next RunAgentInput (its ``resume``, its tool results); after
  any other terminal event the server closes with 1000.
* **Cancel**: ``{"type": "cancel"}`` is the run machine's ``cancel`` move (as ``POST .../runs/{runId}/cancel``): the
  run ends RUN_FINISHED ``outcome: cancelled``, then the socket closes with 1000. A client that goes away
  cancels its run, as on SSE.
* **Load**: each RunAgentInput is a new run, admitted as the endpoint admits a POST (``request/admission.py``), before
  it is checked. A run refused for load closes the socket with **1013** (RFC 6455's "Try Again Later": the server is
  overloaded) and a reason naming the code ``OVERLOADED``, the cause and when to retry; nothing was started, and
  the refusal is counted in the endpoint's metrics. Runs on a socket are counted in the endpoint's metrics too.
* **Keep-alive**: a WebSocket has no frame an AG-UI reader skips, so a silent run is kept alive by protocol
  pings (uvicorn's ``ws_ping_interval``; ``strands-agui serve --agentcore`` sets it to the keep-alive period).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from ag_ui.core import EventType, RunAgentInput
from pydantic import ValidationError
from starlette.websockets import WebSocket

from ...runtime.adapter import StrandsAgent
from ..observability.observation import Observability
from ..request.admission import Admission
from ..request.principals import principal_of
from ..request.validation import RequestLimits, parse_json, run_input_problems
from ..settings import EndpointSettings
from ..transport.driver import RunDriver
from ..transport.inflight import Held
from ..transport.pacing import Pacer
from ..transport.streaming import SSE, encode_event
from ..transport.versions import rewrite_for

logger = logging.getLogger(__name__)

__all__ = ["CANCEL", "MAX_REASON_BYTES", "Refused", "SocketSink", "admitted", "serve_socket"]

CANCEL = "cancel"
MAX_REASON_BYTES = 123  # RFC 6455 5.5: a control frame's payload is 125 bytes, two of them the close code
UNSUPPORTED, POLICY, TOO_BIG, TRY_AGAIN_LATER = 1003, 1008, 1009, 1013


class Refused(Exception):
    """Why the socket closes before or between runs: a close code and a reason that fits a close frame."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, close_reason(reason)


def close_reason(text: str) -> str:
    """``text`` on one line, cut to :data:`MAX_REASON_BYTES` of UTF-8 (never inside a character)."""
    line = " ".join(text.split())
    data = line.encode()
    if len(data) <= MAX_REASON_BYTES:
        return line
    return data[:MAX_REASON_BYTES - 3].decode(errors="ignore") + "..."


def read_message(message: Mapping[str, Any], limits: RequestLimits) -> dict[str, Any]:
    """A text frame's JSON object (bare, or after the SDK's ``data:`` prefix), checked as a body is."""
    text = message.get("text")
    if text is None:
        raise Refused(UNSUPPORTED, "binary frames are not read: send a RunAgentInput as a text frame")
    data = text.encode()
    if len(data) > limits.max_body_bytes:
        raise Refused(TOO_BIG, f"message larger than {limits.max_body_bytes} bytes (max_body_bytes)")
    stripped = data.strip()
    if stripped.startswith(b"data:"):  # the AgentCore SDK's framing of one event, read as its JSON
        stripped = stripped[5:].strip()
    try:
        value = parse_json(stripped, limits)
    except json.JSONDecodeError as exc:
        raise Refused(UNSUPPORTED, exc.msg) from None
    if not isinstance(value, dict):
        raise Refused(UNSUPPORTED, f"a message is a JSON object (a RunAgentInput or {{\"type\": \"{CANCEL}\"}}), "
                                   f"not {type(value).__name__}")
    return value


async def checked_input(value: dict[str, Any], limits: RequestLimits, settings: EndpointSettings) -> RunAgentInput:
    """``value`` as a RunAgentInput the run route would accept; :class:`Refused` (1003) naming the first problem."""
    try:
        input_data = RunAgentInput.model_validate(value)
    except ValidationError as exc:
        raise Refused(UNSUPPORTED, "invalid RunAgentInput: " + _first(exc.errors())) from None
    problems = await run_input_problems(input_data, limits, settings.fetch_media)
    if problems:
        raise Refused(UNSUPPORTED, "invalid RunAgentInput: " + _first(problems))
    return input_data


def _first(errors: list[Any]) -> str:
    error = errors[0]
    where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    return f"{where}: {error['msg']}" if where else str(error["msg"])


class SocketSink:
    """The driver's :class:`~strands_agui.server.transport.driver.Sink` on a socket: each frame of a body (one
    event's JSON and a newline, which ``encode_event`` never writes inside one) is a text message of its own."""

    def __init__(self, socket: Socket) -> None:
        self.socket = socket

    async def write(self, body: bytes) -> None:
        try:
            for frame in body.split(b"\n"):
                if frame:
                    await self.socket.websocket.send_text(frame.decode())
        except Exception:  # noqa: BLE001 - the client left mid-write: the watcher stops the run (cancelling us)
            self.socket.gone.set()
            await asyncio.Future()

    async def gone(self) -> None:
        await self.socket.gone.wait()

    async def end(self) -> None:
        """Nothing: the socket outlives a run (``serve_socket`` closes it)."""


class Socket:
    """One connection: its reader (the only task that receives), the run in flight, and why it stopped."""

    def __init__(self, websocket: WebSocket, limits: RequestLimits) -> None:
        self.websocket, self.limits = websocket, limits
        self.inputs: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.gone = asyncio.Event()  # the client left, or sent what closes the socket (``refusal``)
        self.left = False  # the client closed the socket (nothing more to send)
        self.refusal: Refused | None = None
        self.cancel: threading.Event | None = None  # the run in flight's, None between runs

    async def read(self) -> None:
        """Receive until the client leaves or is refused: inputs queued, a cancel handed to the run in flight."""
        try:
            while (message := await self.websocket.receive())["type"] != "websocket.disconnect":
                value = read_message(message, self.limits)
                if CANCEL == value.get("type"):
                    if self.cancel is not None:
                        self.cancel.set()
                elif "type" in value:
                    raise Refused(UNSUPPORTED, f"unknown message type {str(value['type'])[:40]!r}: send a "
                                               f"RunAgentInput or {{\"type\": \"{CANCEL}\"}}")
                elif self.cancel is not None:
                    raise Refused(POLICY, "one run at a time on a socket: wait for its end, or send "
                                          f"{{\"type\": \"{CANCEL}\"}} first")
                else:
                    self.inputs.put_nowait(value)
            self.left = True
        except Refused as refused:
            self.refusal = refused
        finally:
            self.gone.set()

    async def next_input(self) -> dict[str, Any] | None:
        """The next RunAgentInput the client sent; None once it left or was refused."""
        if self.inputs.empty() and self.gone.is_set():
            return None
        getting = asyncio.ensure_future(self.inputs.get())
        leaving = asyncio.ensure_future(self.gone.wait())
        await asyncio.wait({getting, leaving}, return_when=asyncio.FIRST_COMPLETED)
        leaving.cancel()
        if getting.done():
            return getting.result()
        getting.cancel()
        return None


async def serve_socket(websocket: WebSocket, agent: StrandsAgent, settings: EndpointSettings,
                       observability: Observability, on_run: Callable[[RunAgentInput], None], *,
                       admission: Admission | None = None) -> None:
    """The ``/ws`` route: accept, then each RunAgentInput's run while the last one waits for the client; close
    with 1000 at the end, with the refusal's code and reason before it. ``on_run`` is told each input accepted;
    ``admission`` (None: none) admits each run or refuses it for load."""
    await websocket.accept()
    socket = Socket(websocket, settings.limits)
    reader = asyncio.get_running_loop().create_task(socket.read(), name="strands-agui-ws-read")
    code, reason = 1000, ""
    try:
        while (value := await socket.next_input()) is not None:
            held: Held | None = None
            try:
                held = admitted(admission)
                input_data = await checked_input(value, settings.limits, settings)
            except BaseException as exc:  # a refusal, or the socket's task cancelled while a media URL is fetched
                if held is not None:
                    held.leave()
                if not isinstance(exc, Refused):
                    raise
                socket.refusal = exc
                break
            on_run(input_data)
            if not await _run(socket, agent, settings, observability, input_data, held):
                break
        if socket.refusal is not None:
            code, reason = socket.refusal.code, socket.refusal.reason
    finally:
        reader.cancel()
        await asyncio.wait({reader})
        if not reader.cancelled() and reader.exception() is not None:  # the connection broke under the reader
            logger.debug("the socket's reader failed", exc_info=reader.exception())
    if not socket.left:
        await _close(websocket, code, reason)


def admitted(admission: Admission | None) -> Held | None:
    """A new run's place in ``IN_FLIGHT`` (None: no admission control, the driver counts it), or :class:`Refused`
    with 1013 when admission control refuses it for load (counted in the endpoint's metrics)."""
    if admission is None:
        return None
    refusal = admission.refusal()
    if refusal is None:
        return Held()
    cause, why, limit = refusal
    admission.refuse(cause, why, limit)
    logger.info("WS run refused (OVERLOADED, %s): %s", cause, why)
    raise Refused(TRY_AGAIN_LATER, f"OVERLOADED ({cause}): retry after {admission.policy.retry_after} s; "
                                   "nothing was started")


async def _run(socket: Socket, agent: StrandsAgent, settings: EndpointSettings, observability: Observability,
               input_data: RunAgentInput, held: Held | None = None) -> bool:
    """Drive one run to the socket; True when it ended waiting for the client (the socket stays open). ``held``:
    its place taken by admission control, given back when the run ends, whatever ends it."""
    try:
        return await _drive(socket, agent, settings, observability, input_data, held)
    finally:
        if held is not None:
            held.leave()


async def _drive(socket: Socket, agent: StrandsAgent, settings: EndpointSettings, observability: Observability,
                 input_data: RunAgentInput, held: Held | None) -> bool:
    cancel = socket.cancel = threading.Event()
    observation = observability.observe(input_data)
    pace = Pacer()
    events = agent.run(input_data, request=socket.websocket, pace=pace, cancel=cancel,
                       principal=principal_of(socket.websocket),
                       on_move=observation.on_move if observation is not None else None)
    rewrite = rewrite_for(SSE, input_data.protocol_version)
    ended: list[Any] = []

    def frame(event: Any) -> bytes:
        data = encode_event(rewrite(event)).encode() + b"\n"
        if event.type in (EventType.RUN_FINISHED, EventType.RUN_ERROR):
            ended.append(event)
            socket.cancel = None  # before its frame leaves: the client's next input is no longer "during a run"
        return data

    encode = frame if observation is None else observation.encoder(frame)
    driver = RunDriver(events, encode, SocketSink(socket), keepalive=settings.keepalive_seconds,
                       coalesce=settings.coalesce_seconds, keepalive_frame=None, pace=pace, held=held)
    if observation is None:
        finished = await driver.drive()
    else:
        with observation.observing(driver):
            finished = await driver.drive()
    socket.cancel = None
    return finished and bool(ended) and waits_for_client(ended[-1])


def waits_for_client(event: Any) -> bool:
    """Whether a terminal event leaves the client something to answer on the same socket: interrupts to resume,
    or frontend tool calls to return."""
    outcome = getattr(event, "outcome", None)
    kind = getattr(outcome, "type", None)
    return kind == "interrupt" or (kind == "success" and bool(getattr(outcome, "pending_tool_call_ids", None)))


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    try:
        await websocket.close(code, reason)
    except Exception:  # noqa: BLE001 - the client is gone already
        logger.debug("the socket was closed by the client first", exc_info=True)
