"""Threads and S3 under attack and faults (issue 25): a real S3 (moto's server, a process of its own on loopback,
frozen with SIGSTOP and killed with SIGKILL), two principals (bearer tokens), the app served by uvicorn.

Each case asserts what the client gets (a documented ``RUN_ERROR`` code, a 4xx, or the documented 503 for an
unavailable store), that it gets it within the documented bound (``S3Sessions.call_seconds``: attempts x
(connect + read timeout)), that no principal sees another's threads, and that nothing kept is lost. The table of
cases is in docs/reliability.md ("Adversarial cases (issue 25): threads and S3").
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from strands_agui import S3Sessions
from strands_agui.examples.human_in_the_loop import build_agent
from strands_agui.server.endpoint import add_ping, add_strands_fastapi_endpoint
from tests.live import LiveServer
from tests.principal_app import principal
from tests.support.s3 import BUCKET, MotoS3, aws_env, moto_s3
from tests.support.workers import ROUTE, held_messages

pytestmark = pytest.mark.slow  # a moto process; each frozen-store case waits out the store's timeouts

ALICE, BOB = "alice-token", "bob-token"
LEASE_SECONDS = 2.0
SLACK = 2.0  # seconds beyond the documented bound: a loaded 2-core machine


@pytest.fixture(scope="module")
def s3() -> Iterator[MotoS3]:
    with moto_s3() as server, aws_env(server):
        yield server


def hitl_app(delay: float = 0.0, cooldown: float = 5.0) -> tuple[FastAPI, S3Sessions]:
    """The human_in_the_loop example with server-side threads in S3 (a fresh prefix: each test its own store,
    its own breaker), behind the two bearer tokens."""
    store = S3Sessions(BUCKET, f"t-{uuid.uuid4().hex[:8]}", lease_seconds=LEASE_SECONDS, cooldown=cooldown)
    agent = build_agent(env={"STRANDS_AGUI_SCRIPTED_DELAY": str(delay)})
    agent.sessions, agent.threads = store, True
    app = FastAPI()
    add_ping(app)
    add_strands_fastapi_endpoint(app, agent, ROUTE, auth=principal)
    return app, store


def headers(token: str) -> dict[str, str]:
    return {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"}


def ask(thread: str | None = None, city: str = "Porto") -> dict[str, Any]:
    return {"threadId": thread or f"t-{uuid.uuid4().hex}", "runId": f"r-{uuid.uuid4().hex[:8]}",
            "messages": [{"id": "u1", "role": "user", "content": f"fly me to {city}"}]}


def post(url: str, body: dict[str, Any], token: str = ALICE) -> list[dict[str, Any]]:
    response = httpx.post(url + ROUTE, json=body, headers=headers(token), timeout=120)
    assert response.status_code == 200, response.text
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


def paused(url: str, token: str = ALICE) -> dict[str, Any]:
    """A paused run's resume request (approving the booking)."""
    first = ask()
    events = post(url, first, token)
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    return {**first, "runId": "r2", "messages": held_messages(first, events),
            "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]}


def code(events: list[dict[str, Any]]) -> str | None:
    return events[-1].get("code") if events[-1]["type"] == "RUN_ERROR" else None


def stream_until(url: str, body: dict[str, Any], event_type: str, then: Any) -> tuple[list[dict[str, Any]], float]:
    """Stream a run; at its first ``event_type`` call ``then()``; the run's events and the seconds from then to
    its last event."""
    events: list[dict[str, Any]] = []
    at = None
    with httpx.stream("POST", url + ROUTE, json=body, headers=headers(ALICE), timeout=120) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if at is None and events[-1]["type"] == event_type:
                    then()
                    at = time.monotonic()
                if events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"):
                    break
    assert at is not None, [e["type"] for e in events]
    return events, time.monotonic() - at


def speaking(events: list[dict[str, Any]], delay: float) -> float:
    """How long the scripted model spoke (``delay`` per chunk): Strands writes its message once it is done."""
    return delay * sum(e["type"] == "TEXT_MESSAGE_CONTENT" for e in events)


def test_s3_frozen_mid_resume_ends_session_error_within_the_bound_and_keeps_the_thread(s3: MotoS3) -> None:
    # the resumed model's words come slowly: S3 freezes while it speaks; the breaker closes with the lease
    app, store = hitl_app(delay=0.3, cooldown=LEASE_SECONDS)
    with LiveServer(app) as server:
        resume = paused(server.url)
        try:
            events, took = stream_until(server.url, resume, "TEXT_MESSAGE_CONTENT", s3.freeze)
        finally:
            s3.thaw()
        assert code(events) == "SESSION_ERROR", events[-1]  # was STRANDS_ERROR (Strands' own write timed out)
        assert took < store.call_seconds + SLACK + speaking(events, 0.3), f"{took:.1f} s"
        time.sleep(LEASE_SECONDS + 0.5)  # the failed run could not release its lease: it expires (the breaker closes)
        kept = httpx.get(f"{server.url}{ROUTE}/threads/{resume['threadId']}", headers=headers(ALICE))
        assert kept.status_code == 200 and kept.json()["messages"][0]["content"] == "fly me to Porto"
        again = post(server.url, resume)
        assert again[-1]["type"] == "RUN_FINISHED" or code(again) == "INTERRUPT_NOT_FOUND", again[-1]


def test_s3_frozen_when_a_resume_starts_ends_session_error_within_the_bound(s3: MotoS3) -> None:
    app, store = hitl_app()
    with LiveServer(app) as server:
        resume = paused(server.url)
        with s3.frozen():
            started = time.monotonic()
            events = post(server.url, resume)
            took = time.monotonic() - started
        assert code(events) == "SESSION_ERROR", events[-1]
        assert took < store.call_seconds + SLACK, f"{took:.1f} s"


def test_s3_killed_mid_run_ends_session_error() -> None:
    with moto_s3() as s3, aws_env(s3):
        app, store = hitl_app(delay=0.3)
        with LiveServer(app) as server:
            resume = paused(server.url)
            events, took = stream_until(server.url, resume, "TEXT_MESSAGE_CONTENT", s3.kill)
    assert code(events) == "SESSION_ERROR", events[-1]  # was STRANDS_ERROR (EndpointConnectionError)
    assert took < store.call_seconds + SLACK + speaking(events, 0.3), f"{took:.1f} s"


def test_frozen_s3_thread_routes_answer_503_within_the_bound(s3: MotoS3) -> None:
    app, store = hitl_app()
    with LiveServer(app) as server:
        thread = ask()["threadId"]
        base = f"{server.url}{ROUTE}/threads"
        with s3.frozen():
            for method, url in (("GET", base), ("GET", f"{base}/{thread}"), ("DELETE", f"{base}/{thread}")):
                started = time.monotonic()
                answer = httpx.request(method, url, headers=headers(ALICE), timeout=120)
                took = time.monotonic() - started
                assert answer.status_code == 503 and "session store" in answer.json()["detail"], answer.text
                assert took < store.call_seconds + SLACK, f"{method} {url}: {took:.1f} s"
