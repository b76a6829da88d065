"""Which AG-UI generation a client speaks, and the stream it gets: a serialization concern, in one place.

The run always yields AG-UI 1.0 events (``StrandsAgent.run``). What goes on the wire depends on the request's
``RunAgentInput.protocolVersion`` (``ag_ui/core/version.py``); this server speaks 1.0 and 1.1 (:data:`SPOKEN`):

* **1.1 or later** (1.1 only adds the optional ``encryptedValueType`` beside every ``encryptedValue``, which a
  consumer stores and returns and never reads): the newest stream, RUN_STARTED declaring ``"1.1"``; what the
  client sent of 1.1 (an ``encryptedValueType`` on a message or tool call) comes back as it was sent. A version
  newer than ours, or one outside the version grammar, gets the same stream and is logged as a warning (the spec:
  a newer minor MUST be served, proceed and SHOULD warn; we serve a newer major the same, never refuse it).
* **1.0** (``@ag-ui/client`` 1.0 declares ``"1.0"``): the full 1.0 stream, RUN_STARTED declaring ``"1.0"`` (the
  spec's MUST), without what 1.1 added (:func:`declared_event`).
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


LEGACY = "0.0"
"""The generation of a client that declares nothing, or a version older than 1.0: the 0.0.x stream."""
SPOKEN: tuple[str, ...] = (PROTOCOL_VERSION, "1.1")
"""The versions whose stream this server sends, oldest first: ``ag_ui``'s own (1.0), and 1.1."""
NEWEST = SPOKEN[-1]
ADDED_IN_1_1 = "encryptedValueType"
"""What 1.1 adds to 1.0 (``docs/spec/1.1/changelog``): an optional field beside every ``encryptedValue``."""


def generation(declared: str | None) -> str:
    """The stream a client that declared ``declared`` gets: :data:`LEGACY` (it declared nothing, or a numeric
    version older than 1.0: ``"0.9"``, also ``"0.0.59"``), else the newest version we speak that is not newer
    than its own (``"1.0"``, ``"1.1"``). A declaration newer than :data:`NEWEST`, or unreadable, gets the newest
    stream with a warning: never a refusal."""
    if declared is None:
        return LEGACY
    version = _version(declared) if _NUMERIC.fullmatch(declared) else None  # asked once per request
    if version is not None and version < _version(SPOKEN[0]):
        return LEGACY
    if version is None or version > _version(NEWEST):
        logger.warning("the client declared AG-UI protocol version %r; this server speaks %s at most: it gets the "
                       "%s stream", declared[:40], NEWEST, NEWEST)
        return NEWEST
    return next(spoken for spoken in reversed(SPOKEN) if _version(spoken) <= version)


def speaks_legacy(declared: str | None) -> bool:
    """Whether a client that declared ``declared`` gets the 0.0.x stream (:func:`generation`)."""
    return generation(declared) == LEGACY


def rewritten(framing: Framing, rewrite: Callable[[BaseEvent], BaseEvent]) -> Framing:
    """``framing`` with each event first rewritten by ``rewrite`` (:func:`rewrite_for`)."""
    return replace(framing, frame=_composed(framing.frame, rewrite))


def rewrite_for(framing: Framing, declared: str | None) -> Callable[[BaseEvent], BaseEvent]:
    """How each event is rewritten for a client that declared ``declared`` reading ``framing`` (each reader of a
    resumable run its own, ``server/resumable/run_routes.py``)."""
    return as_sent(declared, proto=framing.media_type == PROTO.media_type)


def as_sent(declared: str | None, *, proto: bool = False) -> Callable[[BaseEvent], BaseEvent]:
    """The rewrite of each event for a client that declared ``declared`` (:func:`generation`); ``proto``: it
    reads the protobuf framing."""
    kind = generation(declared)
    if kind == LEGACY:
        return legacy_proto_event if proto else legacy_event
    return declared_event if kind == SPOKEN[0] else newest_event


def _composed(frame: Callable[[BaseEvent], bytes], rewrite: Callable[[BaseEvent], BaseEvent]
              ) -> Callable[[BaseEvent], bytes]:
    if rewrite is legacy_event:  # most of a 0.0.x SSE stream is deltas, framed as they are: one call less each
        return lambda event: frame(event if type(event) in DELTAS else legacy_event(event))
    return lambda event: frame(rewrite(event))


def declared_event(event: BaseEvent) -> BaseEvent:
    """A 1.0 client's event: RUN_STARTED declares the version the stream speaks, and a MESSAGES_SNAPSHOT holds
    no 1.1 ``encryptedValueType`` (a message a 1.1 client kept in a server-side thread: a 1.0 client would
    strip it, and never returns it)."""
    if isinstance(event, RunStartedEvent) and event.protocol_version is None:
        return event.model_copy(update={"protocol_version": PROTOCOL_VERSION})
    if isinstance(event, MessagesSnapshotEvent):
        return _without_1_1(event)
    return event


def newest_event(event: BaseEvent) -> BaseEvent:
    """A 1.1 (or newer) client's event: RUN_STARTED declares 1.1; everything else is the 1.0 event as it is, what
    the client sent of 1.1 included (an ``encryptedValueType`` is kept, unread, beside its ``encryptedValue``)."""
    if isinstance(event, RunStartedEvent) and event.protocol_version is None:
        return event.model_copy(update={"protocol_version": NEWEST})
    return event


def _without_1_1(event: MessagesSnapshotEvent) -> MessagesSnapshotEvent:
    """``event`` without any ``encryptedValueType`` of its messages and their tool calls (the same object when it
    holds none: the common case costs a look at each message's extra fields)."""
    def has(model: Any) -> bool:
        return ADDED_IN_1_1 in (model.model_extra or ())

    if not any(has(m) or any(has(c) for c in getattr(m, "tool_calls", None) or ()) for m in event.messages):
        return event
    messages = _dump(event.messages)
    for message in messages:
        message.pop(ADDED_IN_1_1, None)
        for call in message.get("toolCalls") or ():
            call.pop(ADDED_IN_1_1, None)
    return MessagesSnapshotEvent.model_validate({**_dump(event), "messages": messages})


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
    """0.0.59's tool message content is a string, and its input parts' sources are ``data`` or ``url``; 1.1's
    ``encryptedValueType`` is not sent."""
    event = _without_1_1(event)
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
