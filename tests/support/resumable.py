"""Helpers of the resumable-runs tests: SSE frames with ids, cutting a stream, reconnecting, stitching; an agent
waiting in a tool until the test opens its gate."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import httpx
from strands import Agent, tool

from strands_agui import StrandsAgent, StrandsAgentConfig
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse

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
              headers: dict[str, str] | None = None, protocol_version: str | None = "1.0") -> httpx.Response:
    """GET the run's events after ``last_id``, as a client declaring ``protocol_version`` (None: a 0.0.x
    client, which declares nothing) gets them."""
    extra = {"Last-Event-ID": last_id} if last_id is not None else {}
    params = {"protocolVersion": protocol_version} if protocol_version is not None else {}
    return httpx.get(f"{url}/runs/{run_id}/events", headers={**SSE, **extra, **(headers or {})}, params=params,
                     timeout=timeout)


def run_body(run_id: str, text: str = "resumable runs", thread_id: str | None = None) -> dict[str, Any]:
    return {"threadId": thread_id or f"thread-{run_id}", "runId": run_id, "state": {},
            "messages": [{"id": f"user-{run_id}", "role": "user", "content": text}],
            "tools": [], "context": [], "forwardedProps": {}, "protocolVersion": "1.0"}


class Gate:
    """A tool that blocks until the test opens it, counting the runs that entered it."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.entered = threading.Event()
        self.cancelled = threading.Event()
        self.entries = 0  # how many runs entered the tool

    def wait_for_entries(self, count: int, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while self.entries < count:
            assert time.monotonic() < deadline, f"{self.entries} runs entered the gate, not {count}"
            time.sleep(0.01)

    def tool(self) -> Any:
        gate = self

        @tool
        async def wait_for_gate() -> str:
            """Wait until the gate opens."""
            gate.entries += 1
            gate.entered.set()
            try:
                while not gate.opened.is_set():
                    await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                gate.cancelled.set()
                raise
            return "the gate opened"

        return wait_for_gate


def gated_agent(gate: Gate, answer: str = "Through the gate.", **config: Any) -> StrandsAgent:
    """An agent that says a few words, waits in ``gate``'s tool, then says ``answer`` (a word a delta); each
    run (several at once, too) plays the whole script. A run asked ``quick`` answers at once."""

    def turn(messages: list[dict[str, Any]]) -> list[Any]:
        last = messages[-1]["content"]
        if any("toolResult" in block or block.get("text") == "quick" for block in last):
            return [Text(answer)]
        return [Text("Waiting at the gate."), ToolUse("wait_for_gate", {}, tool_use_id="gate")]

    model = ScriptedModel(turn)
    return StrandsAgent(Agent(model=model, tools=[gate.tool()], callback_handler=None), name="gated",
                        config=StrandsAgentConfig(**config))
