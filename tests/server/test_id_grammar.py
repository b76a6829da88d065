"""One id grammar (docs/security.md "Ids"): every threadId, runId, parentRunId and interrupt id the server accepts
it can also serve. Before it, a threadId holding ``/`` was accepted and listed but its owner could neither read
nor delete it (404 in every encoding), and run ``K`` then ``K:meta`` collided in Redis.

A ``strands-agui serve`` process with server-side threads and resumable runs on, two principals; each odd id is
sent where a request enters (the run's body, the thread and run routes' paths, raw on the socket so no client
normalises it first): an id outside the grammar is 422 naming the field, never accepted, never a 5xx; an id
inside it is served by every route.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from strands_agui.server.request.validation import ID, INTERRUPT_ID
from tests.support.workers import serve

pytestmark = pytest.mark.slow  # one server process for the module

ALICE = {"Accept": "text/event-stream", "Authorization": "Bearer alice-token"}
BOB = {"Accept": "text/event-stream", "Authorization": "Bearer bob-token"}

ODD = {
    "slash": "a/b",
    "dotdot": "..",
    "dot": ".",
    "percent": "a%2Fb",
    "percent-dotdot": "%2E%2E",
    "unicode": "thread-é",
    "emoji": "🧵",
    "space": "a b",
    "query": "a?b=1",
    "hash": "a#b",
    "backslash": "a\\b",
    "newline": "a\nb",
    "nul": "a\x00b",
    "leading-dash": "-a",
    "empty": "",
    "1KB": "k" * 1024,
    "257": "k" * 257,
}
"""Ids outside the grammar, by what makes them odd."""

SERVED = {
    "uuid": str(uuid.uuid4()),
    "colon-meta": "K:meta",
    "dots-inside": "a..b",
    "all-punctuation": "_a.b:c~d+e=f@g-h",
    "256": "k" * 256,
}
"""Ids inside the grammar that look like trouble: each must be served by every route."""


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("sessions"), 1, "tests.support.threads_app:app",
               env={"STRANDS_AGUI_THREADS": "1", "STRANDS_AGUI_RESUMABLE": "1"}) as base:
        yield base


def body(thread: str, run: str, **extra: Any) -> dict[str, Any]:
    return {"threadId": thread, "runId": run, "protocolVersion": "1.0",
            "messages": [{"id": f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": "hello"}], **extra}


def raw_request(base: str, method: str, target: str, headers: dict[str, str]) -> tuple[int, bytes]:
    """``method target`` sent as written (no client normalises ``..`` or decodes ``%2F``): status and body."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        lines = [f"{method} {target} HTTP/1.1", f"Host: {host}", "Connection: close", "Content-Length: 0",
                 *(f"{k}: {v}" for k, v in headers.items())]
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), rest


def quoted(value: str) -> str:
    """The id as it is put in a request line: percent-encoded where HTTP requires it, nothing else."""
    return "".join(c if 0x21 <= ord(c) < 0x7F else "".join(f"%{b:02X}" for b in c.encode()) for c in value)


def test_the_grammar_is_one_pattern() -> None:
    for value in ODD.values():
        assert not ID.fullmatch(value), value
    for value in SERVED.values():
        assert ID.fullmatch(value), value
    assert INTERRUPT_ID.fullmatch("v1:before_node_call:Strands Agents:1") and not INTERRUPT_ID.fullmatch("a\nb")


@pytest.mark.parametrize("field", ["threadId", "runId", "parentRunId"])
@pytest.mark.parametrize("odd", list(ODD))
def test_an_odd_id_in_the_body_is_422_naming_the_field(url: str, field: str, odd: str) -> None:
    sent = body(f"t-{uuid.uuid4().hex}", f"r-{uuid.uuid4().hex}") | {field: ODD[odd]}
    response = httpx.post(f"{url}/chat", json=sent, headers=ALICE, timeout=30)
    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    if odd == "nul":  # a U+0000 anywhere in the body is refused while it is read (docs/security.md)
        assert error["type"] == "json_invalid", error
        return
    assert error["loc"] == ["body", field] and "is not an id" in error["msg"], error


@pytest.mark.parametrize("odd", ["1KB", "newline", "empty", "unicode"])
def test_an_odd_interrupt_id_is_422_naming_the_entry(url: str, odd: str) -> None:
    value = {"1KB": "i" * 1024, "newline": "a\nb", "empty": "", "unicode": "é"}[odd]
    sent = body(f"t-{uuid.uuid4().hex}", f"r-{uuid.uuid4().hex}", messages=[],
                resume=[{"interruptId": value, "status": "resolved", "payload": {"approved": True}}])
    response = httpx.post(f"{url}/human_in_the_loop", json=sent, headers=ALICE, timeout=30)
    assert response.status_code == 422, response.text
    assert [e["loc"] for e in response.json()["detail"]] == [["body", "resume", 0, "interruptId"]]


@pytest.mark.parametrize("odd", list(ODD))
@pytest.mark.parametrize(("method", "route"), [
    ("GET", "/chat/threads/{}"), ("DELETE", "/chat/threads/{}"),
    ("GET", "/chat/runs/{}/events"), ("POST", "/chat/runs/{}/cancel"),
])
def test_an_odd_id_in_a_path_is_a_clear_4xx(url: str, odd: str, method: str, route: str) -> None:
    """422 naming the id where the path reaches the route; 404 where the odd id is not one path segment (``a/b``,
    ``..``): an id the run route refuses can never name a thread or run, so neither hides one."""
    target = route.format(quoted(ODD[odd]))
    if ODD[odd] in ("", ".", ".."):  # the segment is gone or walks up: no route of the thread/run API matches
        target = route.format(ODD[odd])
    status, text = raw_request(url, method, target, ALICE)
    if target.endswith("/threads/"):  # no id at all: the list route, behind Starlette's trailing-slash redirect
        assert status == 307, (target, status, text)
        return
    assert status in (400, 404, 422), (target, status, text)
    if status == 422:
        assert b"is not an id" in text, text
    assert b"Traceback" not in text


@pytest.mark.parametrize("name", list(SERVED))
def test_an_id_the_grammar_admits_is_served_by_every_route(url: str, name: str) -> None:
    """The thread is listed, read and deleted by its owner, invisible to another principal; the run is
    reconnected to and (being over) refused a cancel with 409, not 404."""
    thread = run = SERVED[name]
    response = httpx.post(f"{url}/chat", json=body(thread, run), headers=ALICE, timeout=30)
    assert response.status_code == 200 and "RUN_FINISHED" in response.text, response.text
    quoted_id = quoted(thread)
    listed = httpx.get(f"{url}/chat/threads", params={"limit": 100}, headers=ALICE).json()["threads"]
    assert thread in [t["threadId"] for t in listed]
    assert raw_request(url, "GET", f"/chat/threads/{quoted_id}", ALICE)[0] == 200
    assert raw_request(url, "GET", f"/chat/threads/{quoted_id}", BOB)[0] == 404
    status, events = raw_request(url, "GET", f"/chat/runs/{quoted_id}/events", ALICE)
    assert status == 200 and b"RUN_FINISHED" in events, events
    assert raw_request(url, "GET", f"/chat/runs/{quoted_id}/events", BOB)[0] == 404
    assert raw_request(url, "POST", f"/chat/runs/{quoted_id}/cancel", ALICE)[0] == 409
    assert raw_request(url, "DELETE", f"/chat/threads/{quoted_id}", BOB)[0] == 404
    assert raw_request(url, "DELETE", f"/chat/threads/{quoted_id}", ALICE)[0] == 204
    assert raw_request(url, "GET", f"/chat/threads/{quoted_id}", ALICE)[0] == 404
