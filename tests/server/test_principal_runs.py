"""Run ids are the principal's: over HTTP, with two bearer tokens, a ``runId`` another principal already used
starts a run of the caller's own (no 409 telling it the id exists), and each principal follows its own run of
that id; reusing one's own run id is still 409.

A real ``strands-agui serve`` process on loopback (``tests/support/principal_app.py``: the human_in_the_loop example
behind bearer tokens, runs resumable), the example's scripted model.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.workers import ROUTE, serve

pytestmark = pytest.mark.slow  # one server process for the module

ALICE, BOB = "alice-token", "bob-token"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("sessions"), 1, "tests.support.principal_app:app") as base:
        yield base


def run(url: str, token: str, run_id: str, city: str) -> httpx.Response:
    body = {"threadId": f"t-{uuid.uuid4().hex}", "runId": run_id,
            "messages": [{"id": "u1", "role": "user", "content": f"fly me to {city}"}]}
    return httpx.post(url + ROUTE, json=body, timeout=30,
                      headers={"Accept": "text/event-stream", "Authorization": f"Bearer {token}"})


def events(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


def followed(url: str, token: str, run_id: str) -> list[dict[str, Any]]:
    return events(httpx.get(f"{url}{ROUTE}/runs/{run_id}/events", timeout=30, headers={
        "Accept": "text/event-stream", "Authorization": f"Bearer {token}"}))


def asked_city(run_events: list[dict[str, Any]]) -> str:
    """The city of the run's booking request (the example's approval interrupt names it)."""
    (interrupt,) = run_events[-1]["outcome"]["interrupts"]
    return str(json.dumps(interrupt))


def test_another_principals_run_id_is_a_run_of_ones_own(url: str) -> None:
    run_id = f"r-{uuid.uuid4().hex}"
    alice = events(run(url, ALICE, run_id, "Porto"))
    bob = run(url, BOB, run_id, "Lima")
    assert bob.status_code == 200, "bob was told alice's run id is taken"
    bob_events = events(bob)
    assert alice[0]["runId"] == bob_events[0]["runId"] == run_id
    assert "Porto" in asked_city(alice) and "Lima" in asked_city(bob_events)
    assert "Lima" in asked_city(followed(url, BOB, run_id)), "bob follows his own run of that id"
    assert "Porto" in asked_city(followed(url, ALICE, run_id)), "alice's run of that id is intact"


def test_reusing_ones_own_run_id_is_still_refused(url: str) -> None:
    run_id = f"r-{uuid.uuid4().hex}"
    events(run(url, ALICE, run_id, "Porto"))
    again = run(url, ALICE, run_id, "Porto")
    assert again.status_code == 409 and "new runId" in again.text
