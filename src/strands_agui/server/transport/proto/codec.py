"""AG-UI events <-> the protobuf ``Event`` message that ``@ag-ui/proto`` 1.0.0 encodes and decodes.

The JSON form of an event (what SSE carries) is not the protobuf form: ``@ag-ui/proto``'s hand-written
``encode`` reshapes some events before the generated code writes them, and its ``decode`` reverses that.
:func:`to_wire` and :func:`from_wire` are the same reshaping, rule for rule, between the event's JSON dict
and the protobuf JSON mapping that ``google.protobuf.json_format`` reads and writes:

* ``type``, ``timestamp``, ``rawEvent`` and ``metadata`` move into ``baseEvent``; the event's fields go
  under the envelope entry named after its type (``TEXT_MESSAGE_START`` -> ``textMessageStart``).
* RUN_FINISHED: ``outcome`` becomes its ``type`` string; a success outcome's ``pendingToolCallIds`` and an
  interrupt outcome's ``interrupts`` become fields of the event. SUBAGENT_FINISHED likewise (``interruptIds``).
* JSON Patch ``op`` becomes the ``JsonPatchOperationType`` enum (STATE_DELTA ``delta``, ACTIVITY_DELTA
  ``patch``).
* A message's or a TOOL_CALL_RESULT's content-part list goes to ``contentParts`` (each part under its
  ``type``); an activity message's object content to ``activityContent``.

Invariant: for every event this package emits, ``from_wire(to_wire(e)) == e`` (``tests/server/transport/test_proto.py``
checks it over every golden stream). What protobuf itself cannot keep is listed in the README: integers above
2**53 inside JSON values (``google.protobuf.Value`` holds doubles) and strings that are not valid UTF-8.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message

from .agui_v1 import events_pb2

Json = dict[str, Any]

_OUTCOME_PAYLOAD = {"RUN_FINISHED": ("pendingToolCallIds", "interrupts"), "SUBAGENT_FINISHED": ("interruptIds",)}
_OUTCOME_OWNS = {"success": "pendingToolCallIds", "interrupt": "interrupts", "suspended": "interruptIds"}
_PATCHES = {"STATE_DELTA": "delta", "ACTIVITY_DELTA": "patch"}
_PARTS_ROLES = frozenset({"user", "tool"})
_INT64 = {"inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens",
          "cacheWriteInputTokens"}
_ENTRY = re.compile(r"_([a-z])")


def entry_name(event_type: str) -> str:
    """The envelope entry (JSON name) that carries an event type: ``RUN_FINISHED`` -> ``runFinished``."""
    return _ENTRY.sub(lambda m: m.group(1).upper(), event_type.lower())


_WELL_KNOWN = frozenset({struct_pb2.Value.DESCRIPTOR, struct_pb2.Struct.DESCRIPTOR})
_TYPE_OF_ENTRY = {entry_name(name): name for name in events_pb2.EventType.keys()}


# ----------------------------------------------------------------------------- encode


def to_wire(event: Json) -> Json:
    """The protobuf JSON mapping of one event's JSON dict (``@ag-ui/proto``'s ``encode`` reshaping)."""
    rest = dict(event)
    kind = rest.pop("type")
    base: Json = {"type": kind}
    base.update((key, rest.pop(key)) for key in ("timestamp", "rawEvent", "metadata") if key in rest)
    if kind == "MESSAGES_SNAPSHOT":
        rest["messages"] = [_wire_message(message) for message in rest.get("messages", [])]
    elif kind in _OUTCOME_PAYLOAD:
        _flatten_outcome(rest, _OUTCOME_PAYLOAD[kind])
    elif kind in _PATCHES:
        rest[_PATCHES[kind]] = [{**op, "op": op["op"].upper()} for op in rest.get(_PATCHES[kind], [])]
    elif kind == "TOOL_CALL_RESULT" and isinstance(rest.get("content"), list):
        rest["contentParts"] = [_wire_part(part) for part in rest.pop("content")]
    elif kind == "RUN_STARTED" and "input" in rest:
        rest["input"] = _wire_input(rest["input"])
    return {entry_name(kind): {"baseEvent": base, **rest}}


def _flatten_outcome(rest: Json, payload_keys: tuple[str, ...]) -> None:
    outcome = rest.pop("outcome", None)
    if outcome is None:
        return
    rest["outcome"] = outcome["type"]
    for key in payload_keys:
        if key in outcome:
            rest[key] = outcome[key]


def _wire_message(message: Json) -> Json:
    wire = dict(message)
    content = wire.get("content")
    if isinstance(content, list):
        wire["contentParts"] = [_wire_part(part) for part in wire.pop("content")]
    elif wire.get("role") == "activity":
        wire["activityContent"] = wire.pop("content", {})
    return wire


def _wire_part(part: Json) -> Json:
    fields = {key: value for key, value in part.items() if key != "type"}
    if "source" in fields:
        source = dict(fields["source"])
        fields["source"] = {source.pop("type"): source}
    return {part["type"]: fields}


def _wire_input(run_input: Json) -> Json:
    wire = dict(run_input)
    wire["messages"] = [_wire_message(message) for message in run_input.get("messages", [])]
    return wire


def encode(event: Json) -> bytes:
    """One event's JSON dict as a serialized ``ag_ui.Event``. Raises ``ValueError`` for a field the schema
    has no place for or a value protobuf cannot hold."""
    return _build(events_pb2.Event, to_wire(event)).SerializeToString()


def _build(cls: type[Message], fields: Json) -> Message:
    """``cls`` from ``fields`` (protobuf JSON names): what ``json_format.ParseDict`` does, several times
    faster. ``google.protobuf.Value`` / ``Struct`` values are still read by ``ParseDict``."""
    plan = _PLANS.get(cls) or _plan(cls)
    kwargs: dict[str, Any] = {}
    for name, value in fields.items():
        try:
            attribute, convert, nullable = plan[name]
        except KeyError:
            raise ValueError(f"{cls.DESCRIPTOR.name} has no field {name!r}") from None
        if value is not None or nullable:
            kwargs[attribute] = convert(value)
    return cls(**kwargs)


_Convert = Callable[[Any], Any]
_Plan = dict[str, tuple[str, _Convert, bool]]
_PLANS: dict[type[Message], _Plan] = {}


def _plan(cls: type[Message]) -> _Plan:
    """How each field of ``cls`` is built: its attribute name and the conversion of its JSON value."""
    plan = {}
    for field in cls.DESCRIPTOR.fields:
        convert: _Convert = _same
        if field.message_type in _WELL_KNOWN:
            convert = _wkt_of(field.message_type._concrete_class)
        elif field.message_type is not None:
            convert = partial(_build, field.message_type._concrete_class)
        elif field.enum_type is not None:
            convert = partial(_enum, field.enum_type.values_by_name)
        if field.is_repeated and field.message_type is not None:
            convert = partial(_each, convert)
        nullable = field.message_type is struct_pb2.Value.DESCRIPTOR  # JSON null is a Value
        plan[field.camelcase_name] = (field.name, convert, nullable)
    _PLANS[cls] = plan
    return plan


def _same(value: Any) -> Any:
    return value


def _each(convert: _Convert, values: list[Any]) -> list[Any]:
    return [convert(value) for value in values]


def _enum(values: Any, name: str) -> int:
    return int(values[name].number)


def _wkt_of(cls: type[Message]) -> _Convert:
    def wkt(value: Any) -> Message:
        return json_format.ParseDict(value, cls())
    return wkt


# ----------------------------------------------------------------------------- decode


def decode(data: bytes) -> Json:
    """One serialized ``ag_ui.Event`` as the event's JSON dict (``@ag-ui/proto``'s ``decode`` reshaping).
    Raises ``ValueError`` for bytes that hold no single known event."""
    message = events_pb2.Event()
    message.ParseFromString(data)
    entry = message.WhichOneof("event")
    if entry is None:
        raise ValueError("the message carries no event this schema knows")
    wire = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return from_wire(wire)


def from_wire(wire: Json) -> Json:
    """The event's JSON dict from the protobuf JSON mapping of its ``ag_ui.Event``."""
    (entry, fields), = wire.items()
    kind = _TYPE_OF_ENTRY[entry]
    fields = _numbers(dict(fields))
    base = fields.pop("baseEvent")
    if base.get("type", "TEXT_MESSAGE_START") != kind:
        raise ValueError(f"the envelope carries {kind} but its base event declares {base.get('type')}")
    event: Json = {"type": kind, **{key: base[key] for key in ("timestamp", "rawEvent", "metadata") if key in base}}
    event.update(fields)
    _int64s(event)
    if kind == "MESSAGES_SNAPSHOT":
        event["messages"] = [_json_message(message) for message in event["messages"]]
    elif kind in _OUTCOME_PAYLOAD:
        _nest_outcome(event, _OUTCOME_PAYLOAD[kind])
    elif kind in _PATCHES:
        event[_PATCHES[kind]] = [{**op, "op": op["op"].lower()} for op in event[_PATCHES[kind]]]
    elif kind == "TOOL_CALL_RESULT":
        parts = event.pop("contentParts")
        if "content" not in event:
            event["content"] = [_json_part(part) for part in parts]
    elif kind == "RUN_STARTED" and "input" in event:
        event["input"]["messages"] = [_json_message(message) for message in event["input"]["messages"]]
    if kind in ("RUN_FINISHED", "RUN_ERROR") and not event.get("usage"):
        event.pop("usage", None)
    return event


def _nest_outcome(event: Json, payload_keys: tuple[str, ...]) -> None:
    kind = event.pop("outcome")
    payload = {key: event.pop(key) for key in payload_keys}
    if kind:
        owned = _OUTCOME_OWNS.get(kind)
        event["outcome"] = {"type": kind, **{key: value for key, value in payload.items() if value or key == owned}}
        if kind == "success" and not payload.get("pendingToolCallIds"):
            event["outcome"].pop("pendingToolCallIds", None)
    else:
        event.update({key: value for key, value in payload.items() if value})


def _json_message(wire: Json) -> Json:
    message = dict(wire)
    parts = message.pop("contentParts", [])
    activity = message.pop("activityContent", None)
    if message.get("role") in _PARTS_ROLES and "content" not in message:
        message["content"] = [_json_part(part) for part in parts]
    if message.get("role") == "activity" and activity is not None:
        message["content"] = activity
    if not message.get("toolCalls"):
        message.pop("toolCalls", None)
    return message


def _json_part(wire: Json) -> Json:
    (kind, fields), = wire.items()
    part = {"type": kind, **fields}
    if "source" in part:
        (source_kind, source), = part["source"].items()
        part["source"] = {"type": source_kind, **source}
    return part


def _numbers(value: Any) -> Any:
    """JSON numbers as JavaScript reads them: an integral double (``google.protobuf.Value``) is an int."""
    if isinstance(value, dict):
        return {key: _numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_numbers(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _int64s(event: Json) -> None:
    """int64 fields, strings in the protobuf JSON mapping, back to ints."""
    if "timestamp" in event:
        event["timestamp"] = int(event["timestamp"])
    for usage in event.get("usage", ()):
        for key in _INT64 & usage.keys():
            usage[key] = int(usage[key])
