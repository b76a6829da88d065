"""The ``background_agents`` example (issue 29): a report written as a background task the client follows as an
activity, and a booking gated by a Strands ``Confirm`` intervention answered with our approval contract, served
over HTTP and read by the official client (1.0)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from strands_agui import FileSessions
from strands_agui.examples import background_agents
from strands_agui.server.app import create_strands_app
from tests.oracles import assert_valid_sse
from tests.support.live import LiveServer
from tests.support.resumable import SSE


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("STRANDS_AGUI_REPORT_SECONDS", "0.2")
    monkeypatch.delenv("STRANDS_AGUI_MODEL", raising=False)
    app = create_strands_app(background_agents.build_agent(env={}), sessions=FileSessions(tmp_path))
    with LiveServer(app) as live:
        yield live


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    raw = httpx.post(url + "/", json=body, headers=SSE, timeout=30).content
    return assert_valid_sse(raw, input=body)


def body(run: str, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"threadId": "thread-bg", "runId": run, "messages": messages, "tools": [], "context": [],
            "forwardedProps": {}, "state": {}, "protocolVersion": "1.0", **extra}


def test_a_report_is_a_task_card_that_ends_with_the_report(served: LiveServer) -> None:
    report = post(served.url, body("run-1", [{"id": "u1", "role": "user", "content": "Write a report on sales"}]))
    [task] = [m for m in report["messages"] if m["role"] == "activity"]
    assert task["activityType"] == "background_task"
    assert (task["content"]["status"], task["content"]["result"]) == (
        "completed", "Report on sales: all indicators are fine.")
    answers = [m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content")]
    assert answers[-1] == "The report is ready: see its card."


def test_a_booking_waits_for_a_confirm_and_approved_books(served: LiveServer) -> None:
    first = body("run-2", [{"id": "u2", "role": "user", "content": "Book me a flight to Porto"}])
    paused = post(served.url, first)
    [interrupt] = paused["interrupts"]
    assert interrupt["message"] == "Book a flight to Porto?" and interrupt["metadata"]["intervention"] == "confirm"
    resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]
    done = post(served.url, body("run-3", paused["messages"], resume=resume))
    assert done["outcome"] == "success"
    answers = [m["content"] for m in done["messages"] if m["role"] == "assistant" and m.get("content")]
    assert answers[-1] == "Your flight to Porto is booked."


@pytest.mark.parametrize(("payload", "answer"), [
    ({"approved": True}, "Your flight to Porto is cancelled."),
    ({"approved": False, "reason": "keep it"}, "I did not cancel the flight"),
])
def test_a_cancellation_waits_for_the_vended_hitl_handler(served: LiveServer, payload: dict[str, Any],
                                                          answer: str) -> None:
    """Strands' vended ``HumanInTheLoop`` (interrupt/resume mode) pauses ``cancel_flight`` on the same approval
    contract: ``{approved: true}`` runs it, ``{approved: false}`` refuses it."""
    paused = post(served.url, body("run-4", [{"id": "u4", "role": "user", "content": "Cancel my flight to Porto"}]))
    [interrupt] = paused["interrupts"]
    assert interrupt["message"] == 'Approve "cancel_flight"?\n  Input: {"city": "Porto"}'
    assert interrupt["metadata"]["intervention"] == "confirm"
    resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": payload}]
    done = post(served.url, body("run-5", paused["messages"], resume=resume))
    assert done["outcome"] == "success"
    answers = [m["content"] for m in done["messages"] if m["role"] == "assistant" and m.get("content")]
    assert answers[-1].startswith(answer)
