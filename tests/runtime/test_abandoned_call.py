"""A new message instead of a resume abandons a paused run's tool call: the model reads the error result the
docs promise (``core.results.UNANSWERED``), and so does the client (a MESSAGES_SNAPSHOT right after
RUN_STARTED holds the call's error tool message), as the official ``@ag-ui/client`` ends up holding it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from strands_agui.core.results import UNANSWERED
from tests.oracles import assert_valid_sse
from tests.support.live import LiveServer
from tests.support.servers import served_examples

SSE = {"Accept": "text/event-stream"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with served_examples(tmp_path_factory.mktemp("sessions")) as server:
        yield server


def events_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


def test_the_client_sees_the_abandoned_calls_error_result(served: LiveServer, tmp_path: Path) -> None:
    url = served.url + "/human_in_the_loop"
    body = {"threadId": "abandoned", "runId": "run-1", "state": {}, "tools": [], "context": [],
            "forwardedProps": {}, "protocolVersion": "1.0",
            "messages": [{"id": "u1", "role": "user", "content": "Book me a flight to Paris"}]}
    paused = httpx.post(url, json=body, headers=SSE, timeout=60).text
    held = assert_valid_sse(paused, input=body)["messages"]  # what the official client holds after the pause
    assert events_of(paused)[-1]["outcome"]["type"] == "interrupt"
    (call,) = [c for m in held for c in m.get("toolCalls") or []]

    again = {**body, "runId": "run-2", "messages": [*held, {"id": "u2", "role": "user", "content": "Never mind"}]}
    sse = httpx.post(url, json=again, headers=SSE, timeout=60).text
    events = events_of(sse)
    assert [e["type"] for e in events[:3]] == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "success"
    report = assert_valid_sse(sse, input=again)
    results = [m for m in report["messages"] if m["role"] == "tool" and m["toolCallId"] == call["id"]]
    # the content a JSON string, as every tool result of ours (upstream's encoding); the error the plain text
    assert len(results) == 1 and results[0]["content"] == json.dumps(UNANSWERED) and results[0]["error"] == UNANSWERED
    snapshot = [m.get("id") for m in events[2]["messages"]]  # on the wire: after its call, before the new message
    assert snapshot.index(results[0]["id"]) == snapshot.index("u2") - 1
    assert "won't book" in report["messages"][-1]["content"]
