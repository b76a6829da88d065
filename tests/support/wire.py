"""Request bodies and headers, posting them, and reading the AG-UI events that come back."""

from __future__ import annotations

import json
from typing import Any

import httpx

from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE, decode_frames

SSE_HEADERS = {"Accept": "text/event-stream", "Content-Type": "application/json"}
FRAMINGS = ["text/event-stream", PROTO_MEDIA_TYPE]  # every RunStream behaviour holds in both
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

# ----------------------------------------------------------------------------------------- bodies


def run_input(text: str = "hi", thread_id: str = "thread-1", run_id: str = "run-1") -> dict[str, Any]:
    """A camelCase RunAgentInput with one user message."""
    return {
        "threadId": thread_id,
        "runId": run_id,
        "state": {},
        "messages": [{"id": f"user-{run_id}", "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


def body(**overrides: Any) -> dict[str, Any]:
    """The smallest valid RunAgentInput (required fields only) with ``overrides`` applied."""
    data: dict[str, Any] = {"threadId": "t-1", "runId": "r-1",
                            "messages": [{"id": "u-1", "role": "user", "content": "hi"}]}
    data.update(overrides)
    return data


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"id": "u-1", "role": "user", "content": content, **extra}


def image(value: str = PNG, mime: str = "image/png", kind: str = "data") -> dict[str, Any]:
    return {"type": "image", "source": {"type": kind, "value": value, "mimeType": mime}}


# ----------------------------------------------------------------------------------------- posting


def post_sse(url: str, body: Any, headers: dict[str, str] | None = None, timeout: float = 10) -> httpx.Response:
    """POST and read the whole response; ``.content`` is the body exactly as sent (de-chunked)."""
    return httpx.post(url, json=body, headers=headers or SSE_HEADERS, timeout=timeout)


def post_run(url: str, body: dict[str, Any], timeout: float = 30) -> httpx.Response:
    """POST a run that must be accepted (200); the whole response."""
    response = post_sse(url, body, timeout=timeout)
    assert response.status_code == 200, response.text
    return response


def post_events(url: str, body: dict[str, Any], timeout: float = 30) -> list[dict[str, Any]]:
    """POST a run that must be accepted (200); the events it streamed."""
    return sse_events(post_run(url, body, timeout).text)


# ----------------------------------------------------------------------------------------- reading


def parse_sse(raw: bytes) -> tuple[list[dict[str, Any]], list[str]]:
    """The events and comments of an SSE body, asserting the exact framing this endpoint promises:
    LF only, every frame either one ``data: <json object>`` line or one ``: comment`` line."""
    text = raw.decode("utf-8")
    assert "\r" not in text, "SSE frames must be LF-only"
    *frames, tail = text.split("\n\n")
    assert tail == "", f"unterminated frame: {tail!r}"
    events: list[dict[str, Any]] = []
    comments: list[str] = []
    for frame in frames:
        assert "\n" not in frame, f"multi-line frame: {frame!r}"
        if frame.startswith(": "):
            comments.append(frame[2:])
        else:
            assert frame.startswith("data: {"), frame
            events.append(json.loads(frame[len("data: "):]))
    return events, comments


def sse_events(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body, read line by line (no framing asserted)."""
    return [json.loads(line.removeprefix("data:")) for line in text.splitlines() if line.startswith("data:")]


def events_in(body: bytes, accept: str) -> list[dict[str, Any]]:
    """The events of a whole body in the framing ``accept`` asked for (SSE framing asserted exactly)."""
    return decode_frames(body) if accept == PROTO_MEDIA_TYPE else parse_sse(body)[0]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def without_trace(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` without the trace ids RUN_STARTED carries when a tracer provider is installed (an earlier test
    of the same process may have installed one: docs/observability.md); any other metadata stays."""
    out = dict(event)
    metadata = {k: v for k, v in (out.pop("metadata", None) or {}).items() if k not in ("traceId", "spanId")}
    return {**out, **({"metadata": metadata} if metadata else {})}
