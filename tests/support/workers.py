"""``strands-agui serve`` processes for tests (in their own process group, on a free loopback port), and pausing
and resuming the human_in_the_loop example through them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.support.processes import running
from tests.support.wire import post_events

ROOT = Path(__file__).resolve().parent.parent.parent
ROUTE = "/human_in_the_loop"
TEAM = "/team"  # tests/support/team_app.py
PIDS: dict[str, int] = {}  # base URL of a running serve() -> its process (group) id


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(sessions: Path | str, workers: int = 1, app: str | None = None, *extra: str, cwd: Path = ROOT,
          env: dict[str, str] | None = None) -> Iterator[str]:
    """``strands-agui serve`` (of ``app``, else the examples) in its own process group, in ``cwd``, with ``env``
    added; yields its base URL once ``/ping`` answers."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "STRANDS_AGUI_SCRIPTED_DELAY": "0", **(env or {})}
    argv = [sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--port", str(port), "--sessions",
            str(sessions), "--workers", str(workers), "--log-level", "warning", *(("--app", app) if app else ()),
            *extra]
    with serving(argv, port, env, cwd) as (url, pid):
        PIDS[url] = pid
        try:
            yield url
        finally:
            PIDS.pop(url, None)


@contextmanager
def serving(argv: list[str], port: int, env: dict[str, str], cwd: Path = ROOT) -> Iterator[tuple[str, int]]:
    """``argv`` in its own process group, serving on ``port``: its base URL and process id once ``/ping`` answers;
    the group is stopped on the way out, however the block ends (``tests/support/processes.py``)."""
    url = f"http://127.0.0.1:{port}"
    with running(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        wait_until_serving(proc, url)
        yield url, proc.pid


def post(url: str, body: dict[str, Any], route: str = ROUTE) -> list[dict[str, Any]]:
    return post_events(url + route, body)


def held_messages(first: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the client holds after the paused run: its message, and the assistant text with the tool call."""
    text = next(e for e in events if e["type"] == "TEXT_MESSAGE_START")["messageId"]
    call = next(e for e in events if e["type"] == "TOOL_CALL_START")
    args = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
    content = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    return [*first["messages"], {"id": text, "role": "assistant", "content": content, "toolCalls": [
        {"id": call["toolCallId"], "type": "function", "function": {"name": call["toolCallName"], "arguments": args}}]}]


def pause(url: str, thread: str, city: str = "Porto") -> dict[str, Any]:
    """Pause a fresh run on ``url``; returns the resume request that approves it."""
    first = {"threadId": thread, "runId": "r1", "messages": [{"id": "u1", "role": "user",
                                                               "content": f"fly me to {city}"}]}
    events = post(url, first)
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "interrupt", events[-1]
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    return {"threadId": thread, "runId": "r2", "messages": held_messages(first, events),
            "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]}


def booked(events: list[dict[str, Any]], city: str = "Porto") -> bool:
    results = [e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"]
    return events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "success" and len(results) == 1 \
        and f'"city":"{city}"' in results[0]  # compact JSON, as upstream encodes results


def wait_until_serving(proc: subprocess.Popen[bytes], url: str) -> None:
    """Until ``url``/ping answers 200; fails when the server exits first or takes over 300 s."""
    deadline = time.monotonic() + 300  # a loaded machine starts slowly; this bounds a hang, not speed
    while True:
        assert proc.poll() is None, f"server exited: {proc.stderr.read().decode()[-2000:]}"  # type: ignore[union-attr]
        try:
            if httpx.get(f"{url}/ping", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.1)
