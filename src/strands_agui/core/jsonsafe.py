"""Strands values as plain JSON data: the one place a live value is made safe to put on the wire.

Strands hands the translator live objects (agents, spans, pydantic models, enums, bytes) inside its events;
nothing of them may reach the client as is. Each variant below says what it keeps and what it drops; they
differ where what the client sees differs, and a new need picks one of them before it adds another.

* :func:`raw_payload` -- a RAW event's payload (``raw_events``): containers and scalars kept, bytes as
  Strands' ``__bytes_encoded__`` marker, every other object (a pydantic model included) only named,
  ``{"__live__": "<Class>"}``; nesting deeper than 50 ends in ``{"__live__": "depth"}``.
* :func:`progress_data` -- a streaming tool's progress (activity content): what ``json.dumps`` takes, plus
  pydantic models dumped, enums by value, bytes as the marker, dataclasses by public field, sets and tuples
  as lists; any other object named as above (a reference cycle names the value itself).
* :func:`stringified` -- data a client reads as given (an interrupt's reason, citations, structured output):
  what ``json.dumps`` takes, anything else as its ``str``.

A recorded log is JSON too; its writer (``sanitize_event`` in the log module) keeps more (results, exceptions,
dates) because a replay must read the run back from it.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
from collections.abc import Mapping
from typing import Any

LIVE_MARKER = "__live__"
BYTES_MARKER = "__bytes_encoded__"
_MAX_DEPTH = 50


def live(value: Any) -> dict[str, str]:
    """The stand-in for an object the client may not see: its class name."""
    return {LIVE_MARKER: type(value).__name__}


def encoded_bytes(value: bytes | bytearray) -> dict[str, Any]:
    """Bytes as Strands' own marker (``strands.types.session.encode_bytes_values``)."""
    return {BYTES_MARKER: True, "data": base64.b64encode(bytes(value)).decode("ascii")}


def raw_payload(value: Any, depth: int = 0) -> Any:
    """``value`` for a RAW event (see the module docstring)."""
    if depth > _MAX_DEPTH:
        return {LIVE_MARKER: "depth"}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, bytes | bytearray):
        return encoded_bytes(value)
    if isinstance(value, Mapping):
        return {str(k): raw_payload(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [raw_payload(v, depth + 1) for v in value]
    return live(value)


def progress_data(value: Any) -> Any:
    """``value`` for a tool's progress activity (see the module docstring)."""
    try:
        return json.loads(json.dumps(value, default=_progress_default))
    except ValueError:  # a reference cycle
        return live(value)


def _progress_default(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, bytes | bytearray):
        return encoded_bytes(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return live(obj)


def stringified(value: Any) -> Any:
    """``value`` as JSON data, anything JSON cannot hold as its ``str`` (see the module docstring)."""
    return json.loads(json.dumps(value, default=str))
