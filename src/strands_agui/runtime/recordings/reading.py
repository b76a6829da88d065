"""Read a strands-agui log back (the format is written by :class:`~strands_agui.runtime.recordings.recording.Recorder`).

A complete log is UTF-8 JSON Lines:

1. the header ``{"strands_agui_log": 1, "metadata": {...}, "input": {<RunAgentInput, camelCase>}}``;
2. one line per sanitized ``stream_async`` event;
3. when the event iterator raised: ``{"__exception__": {"type": "<class name>", "message": "...", "cause": {...}}}``;
4. the end marker ``{"__end__": {"events": <number of event lines>}}``, written when the recorder is closed.

:func:`read_log` refuses a log without its end marker (a recorder that never closed: a killed process, a
truncated copy), an empty file and anything that is not such a log. ``partial=True`` reads what is there on
purpose: the header and the end marker become optional (logs written before the marker existed read this way).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TextIO

from ag_ui.core import RunAgentInput
from pydantic import ValidationError

LOG_VERSION = 1
HEADER_KEY = "strands_agui_log"
EXCEPTION_KEY = "__exception__"
END_KEY = "__end__"
STRANDS_KEYS = frozenset({
    "event", "data", "message", "result", "init_event_loop", "start", "start_event_loop", "type", "force_stop",
    "tool_interrupt_event", "reasoningText", "current_tool_use", "tool_stream_event", "structured_output",
    "event_loop_throttled_delay", "delta", "reasoning", "citation",
})
"""Keys of Strands ``stream_async`` events: a headerless file (read with ``partial``) holding none is no log."""

LogLines = str | os.PathLike[str] | TextIO | Iterable[str]


class LogFormatError(ValueError):
    """A log is not valid; the message names the line number (when there is one) and what is wrong."""


class IncompleteLog(LogFormatError):
    """A log without its header or its end marker: readable on purpose with ``partial=True``."""


@dataclass(frozen=True)
class RecordedRun:
    """A log read back: its events (sanitized form), header and final exception, if any."""

    events: tuple[dict[str, Any], ...]
    header: dict[str, Any] | None = None
    exception: dict[str, Any] | None = None

    @property
    def input_data(self) -> RunAgentInput | None:
        """The recorded ``RunAgentInput``, or None when the header has none."""
        raw = (self.header or {}).get("input")
        return None if raw is None else RunAgentInput.model_validate(raw)

    @property
    def metadata(self) -> dict[str, Any]:
        """The header metadata (empty when absent)."""
        return dict((self.header or {}).get("metadata") or {})


@contextmanager
def _lines(source: LogLines) -> Iterator[Iterable[str]]:
    """The lines of a path (opened and closed here), a text file or any iterable of strings."""
    if isinstance(source, str | os.PathLike):
        with open(source, encoding="utf-8") as file:
            yield file
    else:
        yield source


def read_log(source: LogLines, *, partial: bool = False) -> RecordedRun:
    """Parse a log; blank lines are skipped. Raises :class:`LogFormatError` when it is malformed, empty, not a
    strands-agui log, or (unless ``partial``) has no header or no end marker."""
    reader = _Reader()
    try:
        with _lines(source) as lines:
            for number, line in enumerate(lines, start=1):
                if line.strip():
                    reader.line(_parse_line(line, number), number)
    except UnicodeDecodeError as exc:
        raise LogFormatError(f"not UTF-8 text (byte {exc.start}): not a strands-agui log") from exc
    return reader.finish(partial)


class _Reader:
    """Accumulates one log's lines in order and checks where each kind of line may appear."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.header: dict[str, Any] | None = None
        self.exception: dict[str, Any] | None = None
        self.end: dict[str, Any] | None = None
        self.seen = 0

    def line(self, obj: dict[str, Any], number: int) -> None:
        if self.end is not None:
            raise LogFormatError(f"line {number}: content after the {END_KEY} line")
        if self.exception is not None and set(obj) != {END_KEY}:
            raise LogFormatError(f"line {number}: content after the {EXCEPTION_KEY} line")
        if HEADER_KEY in obj:
            if self.seen:
                raise LogFormatError(f"line {number}: header found after the first line")
            self.header = _check_header(obj, number)
        elif set(obj) == {EXCEPTION_KEY}:
            self.exception = _check_exception(obj[EXCEPTION_KEY], number)
        elif set(obj) == {END_KEY}:
            self.end = _check_end(obj[END_KEY], number, len(self.events))
        else:
            self.events.append(obj)
        self.seen += 1

    def finish(self, partial: bool) -> RecordedRun:
        if not self.seen:
            raise LogFormatError("the log is empty: not a strands-agui log")
        if not partial and self.header is None:
            raise IncompleteLog(f"line 1 is not a strands-agui log header ({{\"{HEADER_KEY}\": {LOG_VERSION}, ...}})")
        if self.header is None and not any(STRANDS_KEYS.intersection(event) for event in self.events):
            raise LogFormatError(f"no header, and none of its {len(self.events)} line(s) is a Strands event "
                                 "(a stream_async dict): not a strands-agui log")
        if not partial and self.end is None:
            raise IncompleteLog(f"the log stops after {self.seen} line(s) without its {END_KEY} marker: it is "
                                 "truncated, or its recorder was never closed")
        return RecordedRun(events=tuple(self.events), header=self.header, exception=self.exception)


def _parse_line(line: str, number: int) -> dict[str, Any]:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LogFormatError(f"line {number}: invalid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(obj, dict):
        raise LogFormatError(f"line {number}: expected a JSON object, got {type(obj).__name__}")
    return obj


def _check_header(obj: dict[str, Any], number: int) -> dict[str, Any]:
    version = obj[HEADER_KEY]
    if type(version) is not int or version != LOG_VERSION:
        raise LogFormatError(f"line {number}: unsupported log version {version!r} (expected {LOG_VERSION})")
    if not isinstance(obj.get("metadata", {}), dict):
        raise LogFormatError(f"line {number}: header metadata must be an object")
    if "input" in obj:
        try:
            RunAgentInput.model_validate(obj["input"])
        except ValidationError as exc:
            raise LogFormatError(f"line {number}: header input is not a RunAgentInput: {exc}") from exc
    return obj


def _check_exception(value: Any, number: int) -> dict[str, Any]:
    if not (isinstance(value, dict) and isinstance(value.get("type"), str)
            and isinstance(value.get("message"), str)):
        raise LogFormatError(f"line {number}: {EXCEPTION_KEY} must be {{\"type\": str, \"message\": str}}")
    checked: dict[str, Any] = {"type": value["type"], "message": value["message"]}
    if "cause" in value:
        checked["cause"] = _check_exception(value["cause"], number)
    return checked


def _check_end(value: Any, number: int, events: int) -> dict[str, Any]:
    count = value.get("events") if isinstance(value, dict) else None
    if type(count) is not int:
        raise LogFormatError(f"line {number}: {END_KEY} must be {{\"events\": int}}")
    if count != events:
        raise LogFormatError(f"line {number}: the end marker counts {count} event(s) but the log holds {events}: "
                             "lines are missing")
    return {"events": count}
