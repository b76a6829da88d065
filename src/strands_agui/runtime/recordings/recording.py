"""Record ``strands.Agent.stream_async()`` runs as JSON Lines logs, read them back and replay them.

A log is UTF-8 JSON Lines, one JSON object per line:

* line 1 (optional when reading, always written): the header
  ``{"strands_agui_log": 1, "metadata": {...}, "input": {<RunAgentInput, camelCase>}}``;
* one line per ``stream_async`` event, sanitized by :func:`sanitize_event`;
* ``{"__exception__": {"type": "<class name>", "message": "<str(exc)>"}}`` when the event iterator raised
  instead of finishing;
* last line: the end marker ``{"__end__": {"events": <number of event lines>}}``, written by
  :meth:`Recorder.close`, so a log that lacks it is known to be cut short (see :mod:`.reading`).

Invariants of a sanitized event:

* it is plain JSON data (dict with str keys, list, str, int, float, bool, None), so
  ``json.loads(json.dumps(e)) == e``;
* it shares no object with the live event: Strands mutates events after yielding them (the shared
  ``current_tool_use`` dict, live ``agent.messages``), so an event must be sanitized on receipt;
* none of :data:`LIVE_KEYS` appears at the top level of the event, nor of any event nested in
  ``tool_stream_event["data"]`` or ``multiagent_node_stream["event"]``;
* ``bytes`` become ``{"__bytes_encoded__": true, "data": "<base64>"}``, the marker of
  ``strands.types.session.encode_bytes_values``; :func:`decode_event` turns them back into ``bytes``.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import os
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from typing import Any, TextIO, TypeVar

from ag_ui.core import RunAgentInput
from pydantic import BaseModel
from strands.agent.agent_result import AgentResult
from strands.multiagent.base import MultiAgentResult
from strands.types.session import decode_bytes_values, encode_bytes_values

from ...core.jsonsafe import LIVE_MARKER
from ...core.state_keys import LIVE_KEYS
from .reading import END_KEY, EXCEPTION_KEY, HEADER_KEY, LOG_VERSION, LogFormatError, RecordedRun, read_log

__all__ = ["LIVE_KEYS", "LOG_VERSION", "LogFormatError", "RecordedRun", "Recorder", "ReplayedException",
           "decode_event", "exception_record", "read_log", "record_stream", "replay_events", "sanitize_event",
           "write_log"]

_Event = TypeVar("_Event", bound=Mapping[str, Any])

_MAX_DEPTH = 100
_PLAIN = frozenset({str, int, float, bool, type(None)})
_EMPTY: frozenset[int] = frozenset()
_NESTED: dict[str, str] = {"tool_stream": "tool_stream_event", "multiagent_node_stream": "event"}
"""Event type -> the key holding a nested event (``tool_stream_event`` holds it under ``"data"``)."""


def sanitize_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """Return a JSON-safe deep copy of one ``stream_async`` event (see the module invariants)."""
    kind = event.get("type")
    nested = _NESTED.get(kind) if type(kind) is str else None
    if nested is None:
        return {_key(k): _clean(v, 1, _EMPTY) for k, v in event.items() if k not in LIVE_KEYS}
    out: dict[str, Any] = {}
    for k, v in event.items():
        if k in LIVE_KEYS:
            continue
        if k != nested or not isinstance(v, Mapping):
            out[_key(k)] = _clean(v, 1, _EMPTY)
        elif nested == "event":
            out[k] = sanitize_event(v)
        else:
            out[k] = {_key(sk): sanitize_event(sv) if sk == "data" and isinstance(sv, Mapping)
                      else _clean(sv, 2, _EMPTY) for sk, sv in v.items()}
    return out


def _key(key: Any) -> str:
    """A JSON object key: str keys unchanged, enums by value, anything else by ``str``."""
    if type(key) is str:
        return key
    return str(key.value if isinstance(key, enum.Enum) else key)


def _clean(obj: Any, depth: int, active: frozenset[int]) -> Any:
    """Deep-copy ``obj`` into plain JSON data.

    ``depth`` bounds the recursion (self-referencing containers end in a ``__live__`` marker); ``active``
    holds the ids of the dataclasses being walked, so reference cycles between dataclasses terminate.
    """
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if depth > _MAX_DEPTH:
        return {LIVE_MARKER: kind.__name__}
    if kind is dict:
        return {_key(k): _clean(v, depth + 1, active) for k, v in obj.items()}
    if kind is list or kind is tuple:
        return [_clean(v, depth + 1, active) for v in obj]
    return _clean_object(obj, depth, active)


def _clean_object(obj: Any, depth: int, active: frozenset[int]) -> Any:
    """The slow path of :func:`_clean`: every type other than plain scalars, ``dict``, ``list``, ``tuple``."""
    if isinstance(obj, enum.Enum):
        return _clean(obj.value, depth + 1, active)
    for base in (int, float, str):
        if isinstance(obj, base):
            return base(obj)
    if isinstance(obj, bytes | bytearray | memoryview):
        return encode_bytes_values(bytes(obj))
    if isinstance(obj, uuid.UUID):
        return str(obj)
    if isinstance(obj, Mapping):
        return {_key(k): _clean(v, depth + 1, active) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [_clean(v, depth + 1, active) for v in obj]
    if isinstance(obj, AgentResult):
        return _clean(_agent_result(obj), depth + 1, active)
    if isinstance(obj, MultiAgentResult):
        return _clean(_multiagent_result(obj), depth + 1, active)
    if isinstance(obj, BaseModel):
        return _clean(obj.model_dump(mode="json"), depth + 1, active)
    if isinstance(obj, BaseException):
        return exception_record(obj)
    if isinstance(obj, datetime.date | datetime.time):
        return obj.isoformat()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _clean_dataclass(obj, depth, active)
    return {LIVE_MARKER: type(obj).__name__}


def _clean_dataclass(obj: Any, depth: int, active: frozenset[int]) -> Any:
    """A dataclass instance as a dict of its public fields; a dataclass already on the path is a marker."""
    if id(obj) in active:
        return {LIVE_MARKER: type(obj).__name__}
    inner = active | {id(obj)}
    return {
        f.name: _clean(getattr(obj, f.name), depth + 1, inner)
        for f in dataclasses.fields(obj)
        if not f.name.startswith("_")
    }


def _agent_result(result: AgentResult) -> dict[str, Any]:
    """``AgentResult.to_dict()`` completed with the fields it omits (still to be cleaned)."""
    data = result.to_dict()
    data["interrupts"] = list(result.interrupts) if result.interrupts is not None else None
    data["structured_output"] = result.structured_output
    data["state"] = result.state
    data["accumulated_usage"] = getattr(result.metrics, "accumulated_usage", None)
    return data


def _multiagent_result(result: MultiAgentResult) -> dict[str, Any]:
    """``MultiAgentResult.to_dict()`` plus the executed node ids of a Swarm or Graph (still to be cleaned)."""
    data = result.to_dict()
    data["results"] = result.results
    for name in ("node_history", "execution_order"):
        nodes = getattr(result, name, None)
        if nodes is not None:
            data[name] = [getattr(node, "node_id", None) for node in nodes]
    return data


def exception_record(exc: BaseException) -> dict[str, dict[str, Any]]:
    """The JSON form of an exception: ``{"__exception__": {"type": <class name>, "message": str(exc)}}``, plus
    ``"cause"`` (same form) for a wrapper that names its ``original_exception`` (Strands' EventLoopException)."""
    return {EXCEPTION_KEY: _exception_fields(exc)}


def _exception_fields(exc: BaseException) -> dict[str, Any]:
    fields: dict[str, Any] = {"type": type(exc).__name__, "message": str(exc)}
    original = getattr(exc, "original_exception", None)
    if isinstance(original, BaseException) and original is not exc:
        fields["cause"] = _exception_fields(original)
    return fields


def decode_event(event: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of a sanitized event with every bytes marker turned back into ``bytes``."""
    decoded: dict[str, Any] = decode_bytes_values(event)
    return decoded


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _open_sink(sink: str | os.PathLike[str] | TextIO) -> TextIO:
    return open(sink, "w", encoding="utf-8") if isinstance(sink, str | os.PathLike) else sink


class Recorder:
    """Writes a log while a run consumes events. Usable as a context manager.

    The header is written before the first line after it (:meth:`annotate` may add metadata until then);
    each :meth:`event` is written and flushed at once, so a crashed process leaves a log readable with
    ``partial=True``. :meth:`close` writes the end marker. After :meth:`exception` or :meth:`close` no event
    may be written. The sink is closed only if the recorder opened it (a path).
    """

    def __init__(self, sink: str | os.PathLike[str] | TextIO, *, input_data: RunAgentInput | None = None,
                 metadata: Mapping[str, Any] | None = None) -> None:
        self._owned = isinstance(sink, str | os.PathLike)
        self._file = _open_sink(sink)
        self._ended = False
        self._closed = False
        self._events = 0
        header: dict[str, Any] = {HEADER_KEY: LOG_VERSION}
        if metadata is not None:
            header["metadata"] = _clean(dict(metadata), 1, _EMPTY)
        if input_data is not None:
            header["input"] = input_data.model_dump(mode="json", by_alias=True, exclude_none=True)
        self._header: dict[str, Any] | None = header

    def annotate(self, **metadata: Any) -> None:
        """Add header metadata (e.g. the run's model), as long as no event was written."""
        if self._header is None:
            raise RuntimeError("the log header is already written")
        self._header["metadata"] = {**self._header.get("metadata", {}), **_clean(metadata, 1, _EMPTY)}

    def event(self, event: Mapping[str, Any]) -> None:
        """Sanitize ``event`` and write it as one line."""
        self._check_open()
        self._write(sanitize_event(event))
        self._events += 1

    def exception(self, exc: BaseException) -> None:
        """Write the final ``__exception__`` line; no event may follow it."""
        self._check_open()
        self._write(exception_record(exc))
        self._ended = True

    def close(self) -> None:
        """Write the end marker, then close the file if the recorder opened it, else flush it. Idempotent."""
        if self._closed:
            return
        self._flush_header()
        self._closed = True
        self._write({END_KEY: {"events": self._events}})
        if self._owned:
            self._file.close()
        else:
            self._file.flush()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the recorder is closed")
        if self._ended:
            raise RuntimeError("the log already ended with an exception")

    def _flush_header(self) -> None:
        if self._header is not None:
            header, self._header = self._header, None
            self._write(header)

    def _write(self, obj: Any) -> None:
        if self._header is not None and obj is not self._header:
            self._flush_header()
        self._file.write(_dumps(obj) + "\n")
        self._file.flush()


def write_log(path: str | os.PathLike[str] | TextIO, events: Iterable[Mapping[str, Any]], *,
              input_data: RunAgentInput | None = None, metadata: Mapping[str, Any] | None = None,
              exception: BaseException | None = None) -> None:
    """Write a whole log at once: header, the (sanitized) ``events``, then ``exception`` if given."""
    with Recorder(path, input_data=input_data, metadata=metadata) as recorder:
        for event in events:
            recorder.event(event)
        if exception is not None:
            recorder.exception(exception)


async def record_stream(stream: AsyncIterator[_Event], recorder: Recorder) -> AsyncGenerator[_Event, None]:
    """Tee a live event stream into ``recorder``, yielding every event unchanged.

    Each event is sanitized before it is passed on, so later Strands mutations never reach the log. An
    exception raised by the source is recorded and re-raised; one thrown in at a ``yield`` (the consumer
    closing early) is not recorded. The source is always closed with ``aclose()`` when it has one.
    """
    iterator = aiter(stream)
    try:
        while True:
            try:
                event = await anext(iterator)
            except StopAsyncIteration:
                return
            except BaseException as exc:
                recorder.exception(exc)
                raise
            recorder.event(event)
            yield event
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()


class ReplayedException(Exception):
    """Raised at the end of a replay whose log ended with an exception. Carries the recorded class name."""

    def __init__(self, type_name: str, message: str, original_exception: ReplayedException | None = None) -> None:
        super().__init__(message)
        self.type_name = type_name
        self.message = message
        self.original_exception = original_exception

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ReplayedException:
        cause = record.get("cause")
        return cls(record["type"], record["message"], cls.from_record(cause) if cause else None)


async def replay_events(run: RecordedRun) -> AsyncGenerator[dict[str, Any], None]:
    """Yield a fresh copy of each recorded event, then raise :class:`ReplayedException` if the run raised."""
    for event in run.events:
        yield _clean(event, 1, _EMPTY)
    if run.exception is not None:
        raise ReplayedException.from_record(run.exception)
