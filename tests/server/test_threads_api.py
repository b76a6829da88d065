"""Server-side threads and the thread API, over HTTP: a ``strands-agui serve --app tests.support.threads_app:app``
process
with ``STRANDS_AGUI_THREADS=1`` (what ``serve --threads`` sets), two bearer tokens.

A request may send only its new messages (the model reads the whole stored history, and the official client
ends up holding what the server holds); the stored history wins over a client's altered copy; ``parentRunId``
with a truncated history branches the thread (regenerate, edit); the thread API lists, restores and deletes
only the caller's threads, paginated.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import RunAgentInput
from strands import Agent

from strands_agui import FileSessions, StrandsAgent
from strands_agui.tooling.scripted import ScriptedModel
from tests.oracles import assert_valid_sse, assert_valid_stream
from tests.support.threads_app import read_back
from tests.support.workers import serve

pytestmark = pytest.mark.slow  # one server process for the module

ALICE, BOB = "alice-token", "bob-token"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("sessions"), 1, "tests.support.threads_app:app",
               env={"STRANDS_AGUI_THREADS": "1"}) as base:
        yield base


def headers(token: str) -> dict[str, str]:
    return {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"}


def run(url: str, token: str, body: dict[str, Any], route: str = "/chat") -> tuple[list[dict[str, Any]], Any]:
    """The run's events and what the official client holds after it (both oracles pass the stream)."""
    response = httpx.post(url + route, json=body, headers=headers(token), timeout=30)
    assert response.status_code == 200, response.text
    events = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    return events, assert_valid_sse(response.text, input=body)["messages"]


def user(text: str, message_id: str | None = None) -> dict[str, Any]:
    return {"id": message_id or f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}


def body(thread: str, *messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"threadId": thread, "runId": f"r-{uuid.uuid4().hex[:8]}", "messages": list(messages), **extra}


def said(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def thread(url: str, token: str, thread_id: str) -> httpx.Response:
    return httpx.get(f"{url}/chat/threads/{thread_id}", headers=headers(token))


def test_a_request_may_send_only_its_new_messages(url: str) -> None:
    tid = f"t-{uuid.uuid4().hex}"
    first, _ = run(url, ALICE, body(tid, user("hello")))
    assert said(first) == "read: hello"
    events, held = run(url, ALICE, body(tid, user("and again")))
    assert said(events) == "read: hello | and again", "the model read the stored history"
    assert events[1]["type"] == "STATE_SNAPSHOT" or events[1]["type"] == "MESSAGES_SNAPSHOT"
    stored = thread(url, ALICE, tid).json()
    assert [m["role"] for m in stored["messages"]] == ["user", "assistant", "user", "assistant"]
    assert [m["id"] for m in held] == [m["id"] for m in stored["messages"]], "the client holds what the server does"
    assert stored["title"] == "hello" and stored["pendingInterrupts"] == []


def test_the_stored_history_wins_over_a_changed_copy(url: str) -> None:
    tid = f"t-{uuid.uuid4().hex}"
    first = user("my name is Ana")
    run(url, ALICE, body(tid, first))
    forged = {**first, "content": "my name is Root"}
    events, held = run(url, ALICE, body(tid, forged, user("who am I?")))
    assert said(events) == "read: my name is Ana | who am I?"
    assert held[0]["content"] == "my name is Ana"


def test_parent_run_id_with_a_truncated_history_branches_the_thread(url: str) -> None:
    tid = f"t-{uuid.uuid4().hex}"
    ask = user("first")
    _, held = run(url, ALICE, body(tid, ask))
    follow = user("second")
    _, held = run(url, ALICE, body(tid, *held, follow))
    regenerate, held_after = run(url, ALICE, body(tid, *held[:3], parentRunId="r-previous"))  # last answer dropped
    assert said(regenerate) == "read: first | second"
    kept = thread(url, ALICE, tid).json()["messages"]
    assert len(kept) == 4 and kept[:3] == held[:3] and kept[3]["id"] != held[3]["id"], "a new last answer"
    edited = {**ask, "content": "first, edited"}
    events, _ = run(url, ALICE, body(tid, edited, parentRunId="r-previous"))
    assert said(events) == "read: first, edited"
    assert [m.get("content") for m in thread(url, ALICE, tid).json()["messages"]] == \
        ["first, edited", "read: first, edited"]


async def test_without_server_side_threads_the_client_history_is_the_branch(tmp_path: Path) -> None:
    adapter = StrandsAgent(Agent(model=ScriptedModel(read_back), callback_handler=None),
                           sessions=FileSessions(tmp_path), threads=False)
    history = [user("first", "u1"), {"id": "a1", "role": "assistant", "content": "read: first"},
               user("second", "u2")]
    truncated = RunAgentInput.model_validate(body("t", history[0], {**history[2], "content": "edited"},
                                                  parentRunId="r1"))
    events = [e async for e in adapter.run(truncated)]
    report = assert_valid_stream(events, input=truncated.model_dump(by_alias=True))
    assert [m.get("content") for m in report["messages"]][-1] == "read: first | edited"
    assert not any(e.type == "MESSAGES_SNAPSHOT" for e in events[:3])


def test_the_thread_api_shows_each_principal_only_their_threads(url: str) -> None:
    tids = [f"list-{i}-{uuid.uuid4().hex}" for i in range(3)]
    for tid in tids:
        run(url, ALICE, body(tid, user(f"hi from {tid}")))
    mine: list[str] = []
    cursor = None
    while True:
        page = httpx.get(f"{url}/chat/threads", params={"limit": 2, **({"cursor": cursor} if cursor else {})},
                         headers=headers(ALICE)).json()
        assert len(page["threads"]) <= 2
        mine += [t["threadId"] for t in page["threads"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert mine[:3] == tids[::-1], "most recently updated first, across pages"
    assert not set(tids) & {t["threadId"] for t in httpx.get(f"{url}/chat/threads", headers=headers(BOB))
                            .json()["threads"]}
    assert thread(url, BOB, tids[0]).status_code == 404
    assert httpx.delete(f"{url}/chat/threads/{tids[0]}", headers=headers(BOB)).status_code == 404
    assert httpx.delete(f"{url}/chat/threads/{tids[0]}", headers=headers(ALICE)).status_code == 204
    assert thread(url, ALICE, tids[0]).status_code == 404
    assert httpx.get(f"{url}/chat/threads", headers={"Accept": "application/json"}).status_code == 401


def test_another_principal_on_the_same_thread_id_has_a_thread_of_its_own(url: str) -> None:
    tid = f"t-{uuid.uuid4().hex}"
    run(url, ALICE, body(tid, user("alice's secret")))
    events, _ = run(url, BOB, body(tid, user("what was said?")))
    assert said(events) == "read: what was said?", "bob's model never reads alice's thread"


def test_a_paused_thread_lists_its_pending_interrupt(url: str) -> None:
    tid = f"t-{uuid.uuid4().hex}"
    events, _ = run(url, ALICE, body(tid, user("fly me to Porto")), route="/human_in_the_loop")
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    listed = httpx.get(f"{url}/human_in_the_loop/threads", headers=headers(ALICE)).json()["threads"]
    (entry,) = [t for t in listed if t["threadId"] == tid]
    assert [i["id"] for i in entry["pendingInterrupts"]] == [interrupt["id"]]


def test_the_thread_api_is_documented_and_declared(url: str) -> None:
    paths = httpx.get(f"{url}/openapi.json").json()["paths"]
    assert {"get"} <= set(paths["/chat/threads"]) and {"get", "delete"} <= set(paths["/chat/threads/{thread_id}"])
    capabilities = httpx.get(f"{url}/chat/capabilities", headers=headers(ALICE)).json()
    assert capabilities["state"]["persistentState"] is True
