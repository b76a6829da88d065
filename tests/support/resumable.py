"""Helpers of the resumable-runs tests: SSE frames with ids, cutting a stream, reconnecting, stitching."""

from __future__ import annotations

import json
from typing import Any

import httpx

SSE = {"Accept": "text/event-stream"}


def frames(raw: bytes | str) -> list[tuple[str | None, dict[str, Any]]]:
    """``(id, event)`` of every event frame of an SSE body (comments skipped); LF framing asserted."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    assert "\r" not in text
    out: list[tuple[str | None, dict[str, Any]]] = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if line and not line.startswith(":"))
        if "data" in fields:
            out.append((fields.get("id"), json.loads(fields["data"])))
    return out


def cut(url: str, body: dict[str, Any], after: int, timeout: float = 30) -> tuple[bytes, str]:
    """POST ``body``, read ``after`` event frames, then drop the connection: the bytes of those frames (what
    the client holds) and the last event id."""
    raw = b""
    with httpx.stream("POST", url, json=body, headers=SSE, timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        for chunk in response.iter_raw():
            raw += chunk
            complete = raw.split(b"\n\n")[:-1]
            events = [block for block in complete if block.startswith(b"data: ")]
            if len(events) >= after:
                held = b"\n\n".join(complete[:complete.index(events[after - 1]) + 1]) + b"\n\n"
                return held, frames(held)[-1][0] or ""
    raise AssertionError(f"the run ended before {after} events: {raw[-300:]!r}")


def reconnect(url: str, run_id: str, last_id: str | None, timeout: float = 30,
              headers: dict[str, str] | None = None) -> httpx.Response:
    extra = {"Last-Event-ID": last_id} if last_id is not None else {}
    return httpx.get(f"{url}/runs/{run_id}/events", headers={**SSE, **extra, **(headers or {})}, timeout=timeout)


def run_body(run_id: str, text: str = "resumable runs", thread_id: str | None = None) -> dict[str, Any]:
    return {"threadId": thread_id or f"thread-{run_id}", "runId": run_id, "state": {},
            "messages": [{"id": f"user-{run_id}", "role": "user", "content": text}],
            "tools": [], "context": [], "forwardedProps": {}, "protocolVersion": "1.0"}
