"""Which AG-UI generation a client speaks, and the stream it gets: a serialization concern, in one place.

The run always yields AG-UI 1.0 events (``StrandsAgent.run``). What goes on the wire depends on the request's
``RunAgentInput.protocolVersion`` (``ag_ui/core/version.py``):

* **1.0 or later** (``@ag-ui/client`` 1.0 declares ``"1.0"``): the full 1.0 stream, and RUN_STARTED declares
  ``protocolVersion`` (the spec's MUST). A version newer than ours, or one outside the version grammar, is
  served the same and logged as a warning (the spec: proceed, and SHOULD warn).
* **nothing, or older than 1.0** (``@ag-ui/client`` 0.0.x, which CopilotKit 1.74 pins at 0.0.59, declares
  nothing): a stream ``@ag-ui/core`` 0.0.59's schemas and ``verifyEvents`` accept. Each event is rewritten on
  its own (:func:`legacy_event`), from 0.0.59's real schemas; ``docs/protocol-versions.md`` is the table.

:func:`rewrite_for` is the entry point, asked once per reader: the endpoint for the framing it negotiated (SSE or
protobuf), and wraps that framing with it (:func:`rewritten`), so the rewrite happens just before an event becomes
bytes and never in the handlers; a resumable run, which stores the 1.0 events, gives the same rewrite to each reader
(the POST's client, and each reconnect by its ``protocolVersion`` query parameter).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    CustomEvent,
    EventType,
    MessagesSnapshotEvent,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    ToolCallResultEvent,
)

from .streaming import DELTAS, PROTO, Framing

logger = logging.getLogger(__name__)

_NUMERIC = re.compile(r"\d{1,9}(\.\d{1,9}){0,7}")  # longer is unreadable (treated as newer), never a crash
LEGACY_PROTO_CUSTOM = frozenset({
    EventType.TOOL_CALL_RESULT, EventType.ACTIVITY_SNAPSHOT, EventType.ACTIVITY_DELTA,
    EventType.REASONING_START, EventType.REASONING_MESSAGE_START, EventType.REASONING_MESSAGE_CONTENT,
    EventType.REASONING_MESSAGE_END, EventType.REASONING_MESSAGE_CHUNK, EventType.REASONING_END,
    EventType.REASONING_ENCRYPTED_VALUE, EventType.TEXT_MESSAGE_CHUNK, EventType.TOOL_CALL_CHUNK,
})
"""Event types ``@ag-ui/proto`` 0.0.59 has no message (or no ``EventType`` value) for: its decoder rejects
the frame, so a 0.0.x client reading protobuf gets each as a CUSTOM event named after it."""


def _version(text: str) -> tuple[int, ...]:
    """``"1.0"``, ``"1.0.0"`` -> ``(1, 0, 0)``: padded, so a longer spelling of the same version is equal."""
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


_OURS = _version(PROTOCOL_VERSION)


def speaks_legacy(declared: str | None) -> bool:
    """Whether a client that declared ``declared`` gets the 0.0.x stream: it declared nothing, or a numeric
    version older than ours (``"0.9"``, also ``"0.0.59"``). A newer or unreadable declaration gets the 1.0
    stream with a warning."""
    if declared is None:
        return True
    version = _version(declared) if _NUMERIC.fullmatch(declared) else None  # asked once per request
    if version is not None and version < _OURS:
        return True
    if version is None or version > _OURS:
        logger.warning("the client declared AG-UI protocol version %r; this server speaks %s: proceeding",
                       declared[:40], PROTOCOL_VERSION)
    return False


def rewritten(framing: Framing, rewrite: Callable[[BaseEvent], BaseEvent]) -> Framing:
    """``framing`` with each event first rewritten by ``rewrite`` (:func:`rewrite_for`)."""
    return replace(framing, frame=_composed(framing.frame, rewrite))


def rewrite_for(framing: Framing, declared: str | None) -> Callable[[BaseEvent], BaseEvent]:
    """How each event is rewritten for a client that declared ``declared`` reading ``framing`` (a resumable
    run stores the rewritten events, ``server/resumable/run_routes.py``)."""
    if not speaks_legacy(declared):
        return declared_event
    return legacy_proto_event if framing.media_type == PROTO.media_type else legacy_event


def _composed(frame: Callable[[BaseEvent], bytes], rewrite: Callable[[BaseEvent], BaseEvent]
              ) -> Callable[[BaseEvent], bytes]:
    if rewrite is legacy_event:  # most of a 0.0.x SSE stream is deltas, framed as they are: one call less each
        return lambda event: frame(event if type(event) in DELTAS else legacy_event(event))
    return lambda event: frame(rewrite(event))


def declared_event(event: BaseEvent) -> BaseEvent:
    """A 1.0 client's event: RUN_STARTED declares the version the stream speaks."""
    if isinstance(event, RunStartedEvent) and event.protocol_version is None:
        return event.model_copy(update={"protocol_version": PROTOCOL_VERSION})
    return event


def legacy_event(event: BaseEvent, *, proto: bool = False) -> BaseEvent:
    """``event`` as a 0.0.x client (``@ag-ui/core`` 0.0.59) accepts it, losing as little as possible.

    ``proto``: the client reads the protobuf framing, whose 0.0.59 schema lacks some event types."""
    if type(event) in DELTAS and not proto:  # most of a stream: 0.0.59 reads the deltas as they are
        return event
    if proto and event.type in LEGACY_PROTO_CUSTOM:
        return _as_custom(event)
    if isinstance(event, RunStartedEvent) and event.protocol_version is not None:
        return event.model_copy(update={"protocol_version": None})
    if isinstance(event, RunFinishedEvent) and event.outcome is not None:
        return _legacy_finish(event)
    if isinstance(event, ToolCallResultEvent) and not isinstance(event.content, str):
        return event.model_copy(update={"content": parts_text(_dump(event.content))})
    if isinstance(event, MessagesSnapshotEvent):
        return _legacy_snapshot(event)
    return event


def legacy_proto_event(event: BaseEvent) -> BaseEvent:
    """:func:`legacy_event` for a 0.0.x client reading the protobuf framing."""
    return legacy_event(event, proto=True)


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [_dump(item) for item in value]
    return value.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(value, "model_dump") else value


def _legacy_finish(event: RunFinishedEvent) -> RunFinishedEvent:
    """0.0.59's outcomes are strict ``{type: success}`` / ``{type: interrupt, interrupts}``: a success's
    ``pendingToolCallIds`` and a ``cancelled`` outcome (unknown there) move into the event's metadata."""
    outcome = _dump(event.outcome)
    kind = outcome["type"]
    if kind == "interrupt":
        return event
    metadata = dict(event.metadata or {})
    if kind == "cancelled":
        metadata["outcome"] = "cancelled"
        return event.model_copy(update={"outcome": None, "metadata": metadata})
    if "pendingToolCallIds" in outcome:
        metadata["pendingToolCallIds"] = outcome["pendingToolCallIds"]
    return event.model_copy(update={"outcome": RunFinishedSuccessOutcome(), "metadata": metadata or None})


def _legacy_snapshot(event: MessagesSnapshotEvent) -> MessagesSnapshotEvent:
    """0.0.59's tool message content is a string, and its input parts' sources are ``data`` or ``url``."""
    messages = _dump(event.messages)
    changed = False
    for message in messages:
        content = message.get("content")
        if message["role"] == "tool" and isinstance(content, list):
            message["content"], changed = parts_text(content), True
        elif message["role"] == "user" and isinstance(content, list):
            legacy = [_legacy_part(part) for part in content]
            changed, message["content"] = changed or legacy != content, legacy
    if not changed:
        return event
    return MessagesSnapshotEvent.model_validate({**_dump(event), "messages": messages})


def _legacy_part(part: dict[str, Any]) -> dict[str, Any]:
    source = part.get("source")
    if isinstance(source, dict) and source.get("type") == "file":
        return {"type": "text", "text": _part_label(part)}
    return part


def parts_text(parts: list[dict[str, Any]]) -> str:
    """A 1.0 content-part list as one string: text parts as they are, other parts described."""
    return "\n".join(part["text"] if part.get("type") == "text" else _part_label(part) for part in parts)


def _part_label(part: dict[str, Any]) -> str:
    source = part.get("source") or {}
    value = str(source.get("value", ""))
    where = value if source.get("type") in ("url", "file") else f"{len(value)} chars"
    return f"[{part.get('type')}: {source.get('mimeType', 'unknown')}, {source.get('type')} {where}]"


def _as_custom(event: BaseEvent) -> CustomEvent:
    body = _dump(event)
    return CustomEvent(name=body.pop("type"), value=body)
