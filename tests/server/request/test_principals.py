"""Threads belong to the principal ``auth`` names: over HTTP, with two bearer tokens, another caller on the same
``threadId`` can neither abandon, resume nor see the first caller's paused run, an interrupt id that is not
the caller's is refused exactly like an unknown one, and another caller's run can be neither followed nor
cancelled by its id.

A real ``strands-agui serve`` process on loopback (``tests/support/principal_app.py``: the human_in_the_loop example
behind bearer tokens), the example's scripted model.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from strands_agui.runtime.storage.sessions import session_id
from tests.support.workers import ROUTE, booked, held_messages, serve

pytestmark = pytest.mark.slow  # one server process for the module

ALICE, BOB = "alice-token", "bob-token"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("sessions"), 1, "tests.support.principal_app:app") as base:
        yield base


def post(url: str, token: str, body: dict[str, Any], fresh: bool = True) -> list[dict[str, Any]]:
    """One run of ``body`` as ``token``'s caller (a fresh runId unless ``fresh`` is False: run ids are unique)."""
    body = {**body, "runId": f"r-{uuid.uuid4().hex}"} if fresh else body
    response = httpx.post(url + ROUTE, json=body, timeout=30,
                          headers={"Accept": "text/event-stream", "Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


def ask(thread: str, city: str) -> dict[str, Any]:
    return {"threadId": thread, "runId": f"r-{uuid.uuid4().hex}", "messages": [{"id": "u1", "role": "user",
                                                                             "content": f"fly me to {city}"}]}


def pause(url: str, token: str, thread: str, city: str) -> dict[str, Any]:
    """Pause ``token``'s run on ``thread``; returns the resume request that approves it."""
    first = ask(thread, city)
    events = post(url, token, first)
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "interrupt", events[-1]
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    return {"threadId": thread, "runId": f"r-{uuid.uuid4().hex}", "messages": held_messages(first, events),
            "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]}


def refusal(events: list[dict[str, Any]]) -> tuple[str, str]:
    assert events[-1]["type"] == "RUN_ERROR", events[-1]
    return events[-1]["code"], events[-1]["message"]


def test_another_principal_cannot_resume_a_pause_even_with_its_interrupt_id(url: str) -> None:
    thread = f"t-{uuid.uuid4().hex}"
    resume = pause(url, ALICE, thread, "Porto")
    stolen = post(url, BOB, resume)
    assert not [e for e in stolen if e["type"] == "TOOL_CALL_RESULT"], "bob received alice's tool result"
    unknown = {**resume, "threadId": f"never-{uuid.uuid4().hex}",
               "resume": [{**resume["resume"][0], "interruptId": uuid.uuid4().hex}]}
    assert refusal(stolen) == refusal(post(url, BOB, unknown))  # same code, same words: nothing leaks
    assert refusal(stolen)[0] == "INTERRUPT_NOT_FOUND"
    assert booked(post(url, ALICE, resume)), "alice's pause is intact"


def test_another_principal_on_the_same_thread_id_does_not_abandon_the_pause(url: str) -> None:
    thread = f"t-{uuid.uuid4().hex}"
    alice = pause(url, ALICE, thread, "Porto")
    bob = pause(url, BOB, thread, "Lima")  # bob's own thread of that id: it pauses on its own
    assert booked(post(url, ALICE, alice), "Porto")
    assert booked(post(url, BOB, bob), "Lima")


def test_another_principals_run_can_be_neither_followed_nor_cancelled(url: str) -> None:
    ask_body = ask(f"t-{uuid.uuid4().hex}", "Porto")
    post(url, ALICE, ask_body, fresh=False)
    events = f"{url}{ROUTE}/runs/{ask_body['runId']}/events"
    cancel = f"{url}{ROUTE}/runs/{ask_body['runId']}/cancel"
    sse = {"Accept": "text/event-stream"}
    assert httpx.get(events, headers={**sse, "Authorization": f"Bearer {BOB}"}).status_code == 404
    assert httpx.post(cancel, headers={"Authorization": f"Bearer {BOB}"}).status_code == 404
    mine = httpx.get(events, headers={**sse, "Authorization": f"Bearer {ALICE}"}, timeout=30)
    assert mine.status_code == 200 and '"RUN_FINISHED"' in mine.text


def test_a_caller_without_a_token_is_refused_before_any_run(url: str) -> None:
    response = httpx.post(url + ROUTE, json=ask("t", "Porto"), headers={"Accept": "text/event-stream"})
    assert response.status_code == 401
    assert httpx.get(url + ROUTE + "/capabilities").status_code == 401


def test_an_anonymous_thread_id_never_names_a_principals_thread(tmp_path: Path) -> None:
    crafted = json.dumps(["alice", "t1"])  # what a naive key of (alice, t1) would be
    assert session_id(crafted) != session_id("t1", "alice")
    assert session_id("t1", "alice") != session_id("t1", "bob") != session_id("t1")
