"""Human in the loop: Strands interrupts end the run paused (RUN_FINISHED interrupt outcome), a resume on the
same thread continues the parked Strands run, and every wrong resume is a documented RUN_ERROR.

Recorded pairs (pause + resume) come from ``tests/support/record_hitl.py``; the live tests drive real Strands agents
on the scripted model with a real ``FileSessions`` store in a temporary directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from strands_agui import StrandsAgent, read_log
from strands_agui.runtime.building.approval import approval_schema
from strands_agui.runtime.recordings import Recorder
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.tooling.testing import assert_matches_golden, dump_events, normalize_ids
from tests.oracles import assert_valid_stream, check_ag_ui_validate
from tests.support import hitl_scenarios
from tests.support.hitl import adapter_for, approve, pause
from tests.support.hitl_scenarios import APPROVAL, BY_NAME, SCENARIOS, HitlScenario, pause_input, resume_input, wire
from tests.support.paths import TESTS
from tests.support.replays import collected, replayed_hitl
from tests.support.scenarios import pinned_ids

ROOT = TESTS
FIXTURES = ROOT / "fixtures" / "hitl"
RUNS = [f"{s.name}.{run}" for s in SCENARIOS for run in ("pause", "resume")]

pytestmark = pytest.mark.usefixtures("clear_executions")


# -- recorded pairs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("run_name", RUNS)
def test_replay_matches_golden(run_name: str) -> None:
    assert_matches_golden(replayed_hitl(run_name), ROOT / "golden" / "hitl" / f"{run_name}.jsonl")


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
async def test_live_pause_and_resume_equal_the_replay_of_their_recordings(name: str, tmp_path: Path) -> None:
    scenario = BY_NAME[name]
    sessions = FileSessions(tmp_path / "sessions")
    first = pause_input()
    with Recorder(tmp_path / "pause.jsonl", input_data=first) as recorder:
        adapter = adapter_for(scenario, sessions, id_factory=pinned_ids())
        paused = dump_events([e async for e in adapter.run(first, recorder=recorder)])
    held = assert_valid_stream(paused, input=wire(first))["messages"]
    second = resume_input(held, scenario.resume_entries(paused[-1]["outcome"]["interrupts"]))
    with Recorder(tmp_path / "resume.jsonl", input_data=second) as recorder:
        adapter = adapter_for(scenario, sessions, id_factory=pinned_ids())  # as if on another worker
        resumed = dump_events([e async for e in adapter.run(second, recorder=recorder)])
    for log, live in (("pause", paused), ("resume", resumed)):
        again = StrandsAgent(scenario.agent(), config=scenario.config, id_factory=pinned_ids())
        assert dump_events([e async for e in again.replay(read_log(tmp_path / f"{log}.jsonl"))]) == live
    assert not list((tmp_path / "sessions").glob("session_*")), "a finished thread keeps no pause state"


FINAL_TOOL_RESULTS = {  # as upstream encodes results: a text as a JSON string, JSON compact
    "tool_interrupt": {"tool-budget": '"The budget for Lisbon is 800 EUR."'},
    "approval_rejected": {"tool-book": '"The user rejected this call to book_flight; it did not run. '
                                       'Reason: too pricey"'},
    "approval_with_sibling": {"tool-w": '{"location":"Lisbon","temperature":21,"conditions":"sunny"}',
                              "tool-book": '{"booked":true,"city":"Lisbon","reference":"FL-LISBON"}'},
    "approval_cancelled": {"tool-book": '"The user cancelled the approval of book_flight; it did not run."'},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
def test_both_oracles_accept_pause_and_resume_and_the_client_ends_with_every_result(name: str) -> None:
    paused = replayed_hitl(f"{name}.pause")
    pause_report = assert_valid_stream(paused, input=wire(read_log(FIXTURES / f"{name}.pause.jsonl").input_data))
    assert pause_report["outcome"] == "interrupt"
    assert [i["id"] for i in pause_report["pending_interrupts"]] == [
        i["id"] for i in dump_events(paused)[-1]["outcome"]["interrupts"]]
    resume_log = read_log(FIXTURES / f"{name}.resume.jsonl")
    assert resume_log.input_data is not None
    assert normalize_ids([m.model_dump(by_alias=True, exclude_none=True) for m in resume_log.input_data.messages]) \
        == normalize_ids(pause_report["messages"]), "the resume was recorded with exactly what the client holds"
    report = assert_valid_stream(replayed_hitl(f"{name}.resume"), input=wire(resume_log.input_data))
    assert report["outcome"] == "success"
    messages = report["messages"]
    tools = {m["toolCallId"]: m["content"] for m in messages if m["role"] == "tool"}
    assert tools == FINAL_TOOL_RESULTS[name]
    assert messages[-1]["role"] == "assistant" and messages[-1]["content"].startswith("Done. ")
    held = [m.model_dump(by_alias=True, exclude_none=True) for m in resume_log.input_data.messages]
    assert all(m in messages for m in held), "the client keeps what it held, under the same ids"


# -- the interrupt outcome ----------------------------------------------------------------------------------
def test_an_approval_interrupt_names_the_call_its_question_and_the_answer_shape() -> None:
    events = dump_events(replayed_hitl("approval_rejected.pause"))
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    book_call = next(e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START")
    assert interrupt["id"].startswith("v1:before_tool_call:tool-book:")
    assert interrupt["reason"] == "tool_approval"
    assert interrupt["message"] == 'Allow book_flight to run with {"city": "Lisbon"}?'
    assert interrupt["toolCallId"] == book_call
    assert interrupt["responseSchema"] == approval_schema(hitl_scenarios.book_flight.tool_spec["inputSchema"]["json"])
    assert interrupt["metadata"]["reason"]["tool"] == "book_flight"


def test_a_tool_interrupt_carries_the_tools_own_message_and_schema() -> None:
    (interrupt,) = dump_events(replayed_hitl("tool_interrupt.pause"))[-1]["outcome"]["interrupts"]
    assert interrupt["reason"] == "budget"
    assert interrupt["message"] == "What is your budget for Lisbon?"
    assert interrupt["responseSchema"] == hitl_scenarios.BUDGET_SCHEMA
    assert interrupt["toolCallId"] == "tool-budget"


@pytest.mark.slow
async def test_interrupt_ids_are_stable_across_runs(tmp_path: Path) -> None:
    ids = []
    for thread in ("t-a", "t-b"):
        events, _ = await pause(adapter_for(BY_NAME["approval_rejected"], FileSessions(tmp_path)), thread)
        ids.append([i["id"] for i in events[-1]["outcome"]["interrupts"]])
    assert ids[0] == ids[1]


async def test_the_sibling_runs_once_and_the_approved_tool_only_on_resume(tmp_path: Path) -> None:
    scenario = BY_NAME["approval_with_sibling"]
    adapter = adapter_for(scenario, FileSessions(tmp_path))
    events, held = await pause(adapter)
    assert hitl_scenarios.EXECUTIONS == ["get_weather:Lisbon"]
    await collected(adapter, resume_input(held, scenario.resume_entries(events[-1]["outcome"]["interrupts"])))
    assert hitl_scenarios.EXECUTIONS == ["get_weather:Lisbon", "book_flight:Lisbon"]


# -- resume errors --------------------------------------------------------------------------------------
async def paused_thread(tmp_path: Path, scenario: HitlScenario | None = None,
                        **store: Any) -> tuple[StrandsAgent, list[Any], list[dict[str, Any]], FileSessions]:
    sessions = FileSessions(tmp_path / "sessions", **store)
    adapter = adapter_for(scenario or BY_NAME["approval_rejected"], sessions)
    events, held = await pause(adapter)
    return adapter, held, events[-1]["outcome"]["interrupts"], sessions


def error_code(events: list[dict[str, Any]]) -> str | None:
    assert events[0]["type"] == "RUN_STARTED"
    return events[-1].get("code") if events[-1]["type"] == "RUN_ERROR" else None


@pytest.mark.parametrize(("entries", "code"), [
    ("unknown-id", "INTERRUPT_NOT_FOUND"),
    ("wrong-shape", "RESUME_INVALID"),
    ("no-payload", "RESUME_INVALID"),
    ("twice", "RESUME_INVALID"),
    ("new-message", "RESUME_INVALID"),
])
async def test_a_wrong_resume_is_refused_and_the_pause_stays_resumable(tmp_path: Path, entries: str,
                                                                         code: str) -> None:
    adapter, held, interrupts, _ = await paused_thread(tmp_path)
    bad = {"unknown-id": [{"interruptId": "v1:no-such-interrupt", "status": "resolved", "payload": {"approved": True}}],
           "wrong-shape": approve(interrupts, {"approved": "yes"}),
           "no-payload": [{"interruptId": interrupts[0]["id"], "status": "resolved"}],
           "twice": approve(interrupts) * 2, "new-message": approve(interrupts)}[entries]
    extra = [{"id": "user-2", "role": "user", "content": "and a hotel"}] if entries == "new-message" else []
    refused = await collected(adapter, resume_input(held + extra, bad))
    assert error_code(refused) == code
    check_ag_ui_validate(refused)
    assert hitl_scenarios.EXECUTIONS == []
    ok = await collected(adapter, resume_input(held, approve(interrupts)))
    assert error_code(ok) is None and hitl_scenarios.EXECUTIONS == ["book_flight:Lisbon"]


async def test_a_resume_must_answer_every_pending_interrupt(tmp_path: Path) -> None:
    two = HitlScenario("two", [hitl_scenarios.BOOK, hitl_scenarios.ToolUse("book_flight", {"city": "Porto"},
                                                                             tool_use_id="tool-book-2")], [], APPROVAL)
    adapter, held, interrupts, _ = await paused_thread(tmp_path, two)
    assert len(interrupts) == 2
    assert error_code(await collected(adapter, resume_input(held, approve(interrupts[:1])))) == "RESUME_INCOMPLETE"
    assert error_code(await collected(adapter, resume_input(held, approve(interrupts)))) is None
    assert sorted(hitl_scenarios.EXECUTIONS) == ["book_flight:Lisbon", "book_flight:Porto"]


async def test_an_identical_resume_sent_twice_runs_the_tool_once(tmp_path: Path) -> None:
    adapter, held, interrupts, _ = await paused_thread(tmp_path)
    resume = resume_input(held, approve(interrupts))
    assert error_code(await collected(adapter, resume)) is None
    assert error_code(await collected(adapter, resume)) == "INTERRUPT_NOT_FOUND"
    assert hitl_scenarios.EXECUTIONS == ["book_flight:Lisbon"]


async def test_an_expired_pause_is_refused_and_removed(tmp_path: Path) -> None:
    adapter, held, interrupts, sessions = await paused_thread(tmp_path, retention_seconds=0.0)
    assert error_code(await collected(adapter, resume_input(held, approve(interrupts)))) == "INTERRUPT_EXPIRED"
    assert sessions.paused_at("thread-hitl") is None and hitl_scenarios.EXECUTIONS == []


@pytest.mark.slow
async def test_cancelling_what_is_no_longer_waited_for_just_finishes(tmp_path: Path) -> None:
    adapter, held, interrupts, sessions = await paused_thread(tmp_path, retention_seconds=0.0)
    cancel = resume_input(held, [{"interruptId": i["id"], "status": "cancelled"} for i in interrupts])
    for _ in range(2):  # expired, then gone: either way nothing runs and nothing is waited for
        events = await collected(adapter, cancel)
        assert error_code(events) is None and events[-1]["outcome"]["type"] == "success"
        assert [e["type"] for e in events] == ["RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert sessions.paused_at("thread-hitl") is None and hitl_scenarios.EXECUTIONS == []
    report = assert_valid_stream(events, input=wire(cancel))
    assert report["pending_interrupts"] == [] and report["messages"] == held


async def test_a_run_on_a_thread_another_run_holds_is_refused(tmp_path: Path) -> None:
    adapter, held, interrupts, sessions = await paused_thread(tmp_path)
    with sessions.hold("thread-hitl"):
        assert error_code(await collected(adapter, resume_input(held, approve(interrupts)))) == "THREAD_BUSY"
        plain = pause_input()
        assert error_code(await collected(adapter, plain)) == "THREAD_BUSY"
    assert error_code(await collected(adapter, resume_input(held, approve(interrupts)))) is None


async def test_a_new_message_without_resume_abandons_the_pause(tmp_path: Path) -> None:
    adapter, held, interrupts, sessions = await paused_thread(tmp_path)
    chat = BY_NAME["approval_rejected"]
    fresh = StrandsAgent(chat.agent(), sessions=sessions)  # no approval: the same request now just runs
    events = await collected(fresh, pause_input())
    assert error_code(events) is None and events[-1]["outcome"]["type"] == "success"
    assert sessions.paused_at("thread-hitl") is None
    assert error_code(await collected(adapter, resume_input(held, approve(interrupts)))) == "INTERRUPT_NOT_FOUND"


async def test_runs_that_never_pause_write_nothing(tmp_path: Path) -> None:
    sessions = FileSessions(tmp_path / "sessions")
    adapter = StrandsAgent(BY_NAME["approval_with_sibling"].agent(), sessions=sessions)  # nothing gated
    events = await collected(adapter, pause_input())
    assert error_code(events) is None and hitl_scenarios.EXECUTIONS == ["get_weather:Lisbon", "book_flight:Lisbon"]
    assert not (tmp_path / "sessions").exists()


async def test_a_resume_on_a_thread_that_never_paused_is_refused(tmp_path: Path) -> None:
    adapter = adapter_for(BY_NAME["approval_rejected"], FileSessions(tmp_path))
    entries = [{"interruptId": "v1:x", "status": "resolved", "payload": {"approved": True}}]
    assert error_code(await collected(adapter, resume_input([], entries))) == "INTERRUPT_NOT_FOUND"


async def test_a_pause_the_store_cannot_keep_ends_with_session_error(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    events = await collected(adapter_for(BY_NAME["approval_rejected"], FileSessions(blocked)), pause_input())
    assert error_code(events) == "SESSION_ERROR"
    check_ag_ui_validate(events)
