"""Pauses survive the process that parked them: ``strands-agui serve`` processes sharing one ``--sessions``
directory resume each other's pauses, after a restart too, and under ``--workers 2``; two resumes of one
pause never both run it.

Real processes on loopback (the CLI, uvicorn), the human_in_the_loop example on its scripted model.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.support.workers import TEAM, booked, pause, post, serve


@pytest.mark.slow
def test_a_pause_resumes_in_another_process_and_after_a_restart(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    with serve(sessions) as a, serve(sessions) as b:
        for i in range(4):
            parked_on, resumed_on = (a, b) if i % 2 == 0 else (b, a)
            resume = pause(parked_on, f"cross-{uuid.uuid4().hex}")
            assert booked(post(resumed_on, resume))
        survivors = [pause(a, f"restart-{i}-{uuid.uuid4().hex}") for i in range(2)]
    with serve(sessions) as c:
        for resume in survivors:
            assert booked(post(c, resume))
            again = post(c, resume)
            assert again[-1]["type"] == "RUN_ERROR" and again[-1]["code"] == "INTERRUPT_NOT_FOUND"
    assert not list(sessions.glob("session_*")), "finished threads leave no pause state"


@pytest.mark.slow
def test_two_workers_serve_pauses_and_one_of_two_racing_resumes_wins(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    with serve(sessions, workers=2) as url:
        with ThreadPoolExecutor(max_workers=4) as pool:
            resumes = list(pool.map(lambda i: pause(url, f"w-{i}-{uuid.uuid4().hex}"), range(6)))
            assert all(pool.map(lambda r: booked(post(url, r)), resumes))
            for _ in range(3):
                race = pause(url, f"race-{uuid.uuid4().hex}")
                outcomes = list(pool.map(lambda r: post(url, r), [race, race]))
                winners = [o for o in outcomes if booked(o)]
                losers = [o[-1].get("code") for o in outcomes if not booked(o)]
                assert len(winners) == 1, outcomes
                assert losers[0] in {"THREAD_BUSY", "INTERRUPT_NOT_FOUND"}
                assert booked(post(url, pause(url, race["threadId"]))), "the thread is still usable"
    assert not list(sessions.glob("session_*"))


@pytest.mark.slow
def test_a_paused_swarm_resumes_on_any_worker_and_after_a_restart(tmp_path: Path) -> None:
    """The Swarm's node approval (tests/support/team_app.py): paused on one worker, resumed on whichever serves it."""
    from tests.oracles import assert_valid_stream
    from tests.support.hitl_scenarios import pause_input, resume_input, wire

    def team_pause(url: str, thread: str) -> dict[str, Any]:
        first = wire(pause_input(thread))
        events = post(url, first, TEAM)
        expires = [datetime.fromisoformat(i["expiresAt"].replace("Z", "+00:00")).timestamp() - time.time()
                   for i in events[-1]["outcome"]["interrupts"]]
        assert all(3600 < left <= 7200 for left in expires), expires  # serve --pause-retention 7200, not 24 h
        held = assert_valid_stream(events, input=first)["messages"]
        entries = [{"interruptId": i["id"], "status": "resolved", "payload": {"approved": True}}
                   for i in events[-1]["outcome"]["interrupts"]]
        return wire(resume_input(held, entries, thread_id=thread))

    def done(events: list[dict[str, Any]]) -> bool:
        results = [e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"]
        return events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "success" \
            and '"booked":true' in results[0]  # compact JSON

    sessions = tmp_path / "sessions"
    with serve(sessions, 2, "tests.support.team_app:app", "--pause-retention", "7200") as url:
        resumes = [team_pause(url, f"team-{i}-{uuid.uuid4().hex}") for i in range(3)]
        with ThreadPoolExecutor(max_workers=3) as pool:
            assert all(pool.map(lambda r: done(post(url, r, TEAM)), resumes))
        again = post(url, resumes[0], TEAM)
        assert again[-1]["type"] == "RUN_ERROR" and again[-1]["code"] == "INTERRUPT_NOT_FOUND"
        survivor = team_pause(url, f"team-restart-{uuid.uuid4().hex}")
    with serve(sessions, 1, "tests.support.team_app:app", "--pause-retention", "7200") as url:
        assert done(post(url, survivor, TEAM))
    assert not list(sessions.glob("session_*")), "finished threads leave no pause state"

