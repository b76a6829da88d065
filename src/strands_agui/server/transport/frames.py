"""One event's frame: the encoding step a transport gives the driver, which events end a run, and what stands in
for an event that cannot be encoded (a RUN_ERROR ``ENCODING_ERROR``, after the bare RUN_STARTED it needs and the
END of every tool call still open, its arguments completed to parse)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ag_ui.core import (
    EventType,
    RunErrorEvent,
    RunStartedEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)

from ...core.results import complete_json

# the served runs' one logger (the driver's too)
logger = logging.getLogger("strands_agui.server.transport.streaming")

__all__ = ["TERMINAL", "Encode", "OpenCalls", "encode_or_error"]

TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})

Encode = Callable[[Any], bytes]
"""The one encoding step: an AG-UI event (or a stored one, ``server/resumable/event_store.Stored``) -> the bytes of its
frame; raises when it cannot serialize. The only place a transport's framing (and a protocol version's
shape) applies."""


class OpenCalls:
    """The tool calls whose TOOL_CALL_END has not gone out, with the arguments sent so far. A run cut short by an
    event that cannot be encoded (ENCODING_ERROR) ends them first, their arguments completed to parse (the client
    parses them; text, reasoning and subagents left open before a RUN_ERROR are valid as they are).

    Why the transport keeps this beside the run's machine and ``ClientMessages``: those say what the run
    produced, this says what reached the wire, and the two differ exactly when it is read: the event that could
    not be encoded (a TOOL_CALL_ARGS among them) never left, and every layer between the run and the wire (the
    version rewrite, a resumable run's store, the framing) may be the one that failed. So it records only the
    wire's open calls and their argument text, from the frames that went out."""

    __slots__ = ("args",)

    def __init__(self) -> None:
        self.args: dict[str, str] = {}

    def see(self, event: Any) -> None:
        kind = type(event)
        if kind is ToolCallArgsEvent:
            if event.tool_call_id in self.args:
                self.args[event.tool_call_id] += event.delta
        elif kind is ToolCallStartEvent:
            self.args[event.tool_call_id] = ""
        elif kind is ToolCallEndEvent:
            self.args.pop(event.tool_call_id, None)

    def closing(self, encode: Encode) -> bytes:
        out = b""
        for call_id, args in self.args.items():
            suffix = complete_json(args) if args else ""
            try:
                if suffix:
                    out += encode(ToolCallArgsEvent(tool_call_id=call_id, delta=suffix))
                out += encode(ToolCallEndEvent(tool_call_id=call_id))
            except Exception:  # noqa: BLE001 - the RUN_ERROR still goes out
                logger.warning("could not close tool call %s of a run cut short", call_id, exc_info=True)
        self.args.clear()
        return out


def encode_or_error(encode: Encode, event: Any) -> tuple[bytes, bool]:
    """The frame for ``event`` and whether it ends the run. An event that cannot be serialized becomes a
    RUN_ERROR ``ENCODING_ERROR`` frame, which ends the run."""
    try:
        return encode(event), event.type in TERMINAL
    except Exception as exc:  # noqa: BLE001 - reported to the client as RUN_ERROR
        kind = getattr(event.type, "value", event.type)
        logger.warning("could not serialize a %s event: %s", kind, exc)
        message = f"A {kind} event could not be serialized: {exc}"
        return _started(encode, event) + encode(RunErrorEvent(message=message, code="ENCODING_ERROR")), True


def _started(encode: Encode, event: Any) -> bytes:
    """When the event that cannot be serialized is RUN_STARTED, the bare RUN_STARTED its RUN_ERROR needs before it
    (a stream never begins with RUN_ERROR); b"" otherwise, or when that cannot be serialized either."""
    if event.type is not EventType.RUN_STARTED or not isinstance(event, RunStartedEvent):
        return b""
    try:
        return encode(RunStartedEvent(thread_id=event.thread_id, run_id=event.run_id))
    except Exception:  # noqa: BLE001 - the RUN_ERROR alone, as before
        logger.warning("could not serialize a bare RUN_STARTED either", exc_info=True)
        return b""
