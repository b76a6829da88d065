"""A run that ends any way but success keeps, on its server-side thread, what its client held when the end began
(``docs/threads.md``): a reload (``GET {path}/threads/{threadId}``) restores what the page showed at the Stop.

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); the model streams two deltas, then
waits at a gate the test opens once the run was stopped (so what the client held is exact, never a race).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from strands import Agent

from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.live import LiveServer
from tests.support.servers import wait_until
from tests.support.wire import run_input

pytestmark = pytest.mark.usefixtures("no_server_errors")

ANSWER = "Hello there, the rest of the answer follows after the gate."
SHOWN_DELTAS = 2  # what streams before the model waits at the gate
STRANDS_SEES_CANCEL = 0.3  # Strands mirrors a caller's cancel_signal onto its agent's every 0.05 s: after this, its
# model stream sees the cancel at the next chunk and replaces the partial text with "Cancelled by user"


class _GatedModel(ScriptedModel):
    """Streams ``ANSWER`` in 6 deltas, waiting after the first ``SHOWN_DELTAS`` until ``gate`` is set."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__([[Text(ANSWER, chunks=6)]])
        self.gate = gate

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        deltas = 0
        async for chunk in super().stream(*args, **kwargs):
            if "contentBlockDelta" in chunk:
                if deltas == SHOWN_DELTAS:
                    while not self.gate.is_set():
                        await asyncio.sleep(0.01)
                deltas += 1
            yield chunk


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    opened = threading.Event()
    yield opened
    opened.set()  # a failing test leaves no run waiting


def _server(tmp_path: Path, gate: threading.Event, resumable: bool) -> LiveServer:
    agent = StrandsAgent(Agent(model=_GatedModel(gate), callback_handler=None),
                         sessions=FileSessions(tmp_path), threads=True)
    return LiveServer(create_strands_app(agent, resumable=resumable))


def _held_at_stop(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """POST the run, read it until ``SHOWN_DELTAS`` deltas arrived, then leave (the page's Stop aborts its
    stream); returns the messages the client holds then (its input, then the streamed assistant text)."""
    messages = [dict(m) for m in body["messages"]]
    deltas = 0
    with httpx.Client(timeout=10) as client, client.stream(
            "POST", url + "/", json=body, headers={"Accept": "text/event-stream"}) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line[6:])
            if event["type"] == "TEXT_MESSAGE_START":
                messages.append({"id": event["messageId"], "role": "assistant", "content": ""})
            elif event["type"] == "TEXT_MESSAGE_CONTENT":
                messages[-1]["content"] += event["delta"]
                deltas += 1
                if deltas == SHOWN_DELTAS:
                    break
    assert deltas == SHOWN_DELTAS
    return messages


def _restored(url: str, thread_id: str) -> list[dict[str, Any]]:
    """What a page reloading the thread receives, once its run is over (GET restore)."""
    view: dict[str, Any] = {}

    def ended() -> bool:
        response = httpx.get(f"{url}/threads/{thread_id}", timeout=5)
        view.clear()
        view.update(response.json() if response.status_code == 200 else {})
        return response.status_code == 200 and "liveRun" not in view and bool(view.get("messages"))

    wait_until(ended, 5)
    return view["messages"]  # type: ignore[no-any-return]


def test_a_stopped_run_keeps_the_text_the_client_was_shown(tmp_path: Path, gate: threading.Event) -> None:
    """Stop on a resumable run (the page aborts its stream and cancels the run by id): Strands answers the cancel
    with "Cancelled by user" in place of the partial text, which the client never receives; the thread keeps the
    streamed text the client held."""
    body = run_input("tell me", thread_id="stopped", run_id="run-stopped")
    with _server(tmp_path, gate, resumable=True) as server:
        held = _held_at_stop(server.url, body)
        cancelled = httpx.post(f"{server.url}/runs/run-stopped/cancel", timeout=5)
        assert cancelled.status_code < 300, cancelled.text
        time.sleep(STRANDS_SEES_CANCEL)
        gate.set()
        assert _restored(server.url, "stopped") == held
    assert held[-1]["content"] and held[-1]["content"] != ANSWER


def test_a_first_run_whose_client_left_keeps_what_it_was_sent(tmp_path: Path, gate: threading.Event) -> None:
    """Plain SSE with threads on: a client that leaves stops the run; the thread (new: its first run) keeps what
    the client held, not nothing."""
    body = run_input("tell me", thread_id="left", run_id="run-left")
    with _server(tmp_path, gate, resumable=False) as server:
        held = _held_at_stop(server.url, body)
        assert _restored(server.url, "left") == held


def test_a_background_tasks_card_is_kept_with_its_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """*background_agents*: the task's card (a ``background_task`` activity message, which the official client holds
    and never sends back) is in the restored thread, where the client holds it, with the report it ended with."""
    from strands_agui.examples.background_agents import build_agent
    from tests.oracles import assert_valid_sse

    monkeypatch.setenv("STRANDS_AGUI_REPORT_SECONDS", "0.05")
    agent = build_agent({})
    agent.sessions, agent.threads = FileSessions(tmp_path), True
    body = run_input("Write a report on sales", thread_id="report", run_id="run-report")
    with LiveServer(create_strands_app(agent)) as server:
        response = httpx.post(server.url + "/", json=body, headers={"Accept": "text/event-stream"}, timeout=30)
        held = assert_valid_sse(response.text, input=body)["messages"]
        restored = _restored(server.url, "report")
    cards = [m for m in held if m["role"] == "activity"]
    assert cards and cards[0]["content"]["status"] == "completed"
    assert restored == held


def test_a_stopped_runs_card_is_kept_cancelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop while the report is being written (a resumable run: the page aborts its stream and cancels the run):
    the reloaded thread has the task's card where the page held it, ``cancelled`` as the page shows it."""
    from strands_agui.examples.background_agents import build_agent

    monkeypatch.setenv("STRANDS_AGUI_REPORT_SECONDS", "30")
    agent = build_agent({})
    agent.sessions, agent.threads = FileSessions(tmp_path), True
    body = run_input("Write a report on sales", thread_id="stopped-report", run_id="run-stopped-report")
    with LiveServer(create_strands_app(agent, resumable=True)) as server:
        with httpx.Client(timeout=10) as client, client.stream(
                "POST", server.url + "/", json=body, headers={"Accept": "text/event-stream"}) as response:
            card = next(json.loads(line[6:]) for line in response.iter_lines()
                        if line.startswith("data: ") and '"ACTIVITY_SNAPSHOT"' in line)
        assert httpx.post(f"{server.url}/runs/run-stopped-report/cancel", timeout=5).status_code < 300
        restored = _restored(server.url, "stopped-report")
    assert restored[0] == body["messages"][0]
    cards = [m for m in restored if m["role"] == "activity"]
    assert [m["id"] for m in cards] == [card["messageId"]]
    assert cards[0]["content"] == {**card["content"], "status": "cancelled"}
