"""Human in the loop inside a Swarm or Graph: a node agent's interrupt (its tool's, or the approval hook on its
tool) pauses the run; the node's subagent ends ``suspended``; the resume on the same thread continues the
same Strands Swarm/Graph (restored from the session store) and the same subagent invocation.

Recorded pairs come from ``python -m tests.support.record_hitl`` (``TEAM_SCENARIOS``); the live tests drive real
Swarms and Graphs on the scripted model with a real ``FileSessions`` store.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent
from strands.hooks import BeforeNodeCallEvent
from strands.multiagent import GraphBuilder

from strands_agui import StrandsAgent, read_log
from strands_agui.environment import RETENTION_ENV
from strands_agui.runtime.building.approval import approval_schema
from strands_agui.runtime.recordings import Recorder
from strands_agui.runtime.storage.default import default_store
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from strands_agui.tooling.testing import assert_matches_golden, dump_events
from tests.oracles import assert_valid_stream, check_ag_ui_validate
from tests.support import hitl_scenarios
from tests.support.hitl import approve
from tests.support.hitl_scenarios import (
    BY_NAME,
    HANDOFF,
    TEAM_SCENARIOS,
    HitlScenario,
    ask_budget,
    follow_up,
    pause_input,
    resume_input,
    wire,
)
from tests.support.live import LiveServer
from tests.support.paths import TESTS
from tests.support.replays import collected, replayed_hitl
from tests.support.scenarios import pinned_ids
from tests.support.wire import post_events

ROOT = TESTS
FIXTURES = ROOT / "fixtures" / "hitl"
NAMES = [s.name for s in TEAM_SCENARIOS]

pytestmark = pytest.mark.usefixtures("clear_executions")


def code(events: list[dict[str, Any]]) -> str | None:
    return events[-1].get("code") if events[-1]["type"] == "RUN_ERROR" else None


async def paused(tmp_path: Path, name: str = "swarm_approval",
                 **store: Any) -> tuple[StrandsAgent, list[dict[str, Any]], list[Any], FileSessions]:
    sessions = FileSessions(tmp_path / "sessions", **store)
    scenario = BY_NAME[name]
    adapter = StrandsAgent(scenario.agent(), config=scenario.config, sessions=sessions)
    first = pause_input()
    events = await collected(adapter, first)
    held = assert_valid_stream(events, input=wire(first))["messages"]
    return adapter, events, held, sessions


# -- recorded pairs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("run_name", [f"{n}.{r}" for n in NAMES for r in ("pause", "resume")])
def test_replay_matches_golden(run_name: str) -> None:
    assert_matches_golden(replayed_hitl(run_name), ROOT / "golden" / "hitl" / f"{run_name}.jsonl")


FINAL = {  # the node's tool result (as upstream encodes it), the node's last words, the writer's words
    "swarm_tool_interrupt": ('"The budget for Lisbon is 800 EUR."', "Handed to the writer."),
    "swarm_approval": ('{"booked":true,"city":"Lisbon","reference":"FL-LISBON"}', "Handed to the writer."),
    "graph_tool_interrupt": ('"The budget for Lisbon is 800 EUR."', "Done. The budget for Lisbon is 800 EUR."),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_both_oracles_accept_the_node_pause_and_its_resume(name: str) -> None:
    pause_events = dump_events(replayed_hitl(f"{name}.pause"))
    report = assert_valid_stream(pause_events, input=wire(read_log(FIXTURES / f"{name}.pause.jsonl").input_data))
    assert report["outcome"] == "interrupt"
    (interrupt,) = pause_events[-1]["outcome"]["interrupts"]
    node = next(e for e in pause_events if e["type"] == "SUBAGENT_STARTED")
    suspended = next(e for e in pause_events if e["type"] == "SUBAGENT_FINISHED")
    assert node["name"] == "traveller" and suspended["subagentRunId"] == node["subagentRunId"]
    assert suspended["outcome"] == {"type": "suspended", "interruptIds": [interrupt["id"]]}
    call = next(e for e in pause_events if e["type"] == "TOOL_CALL_START")
    assert interrupt["subagentRunId"] == node["subagentRunId"] and interrupt["toolCallId"] == call["toolCallId"]
    assert [i["id"] for i in report["pending_interrupts"]] == [interrupt["id"]]

    resume_log = read_log(FIXTURES / f"{name}.resume.jsonl")
    assert resume_log.input_data is not None and resume_log.input_data.resume
    resume_events = dump_events(replayed_hitl(f"{name}.resume"))
    final = assert_valid_stream(resume_events, input=wire(resume_log.input_data))
    assert final["outcome"] == "success" and final["pending_interrupts"] == []
    restarted = next(e for e in resume_events if e["type"] == "SUBAGENT_STARTED")
    held_owner = next(m["subagentRunId"] for m in resume_log.input_data.model_dump(by_alias=True)["messages"]
                      if m.get("toolCalls"))
    assert restarted["subagentRunId"] == held_owner, "the resume continues the suspended invocation"
    messages = final["messages"]
    result, node_words = FINAL[name]
    tools = [m for m in messages if m["role"] == "tool" and m["toolCallId"] == call["toolCallId"]]
    assert [m["content"] for m in tools] == [result] and tools[0]["subagentRunId"] == held_owner
    node_texts = [m["content"] for m in messages if m.get("subagentRunId") == held_owner and m["role"] == "assistant"]
    assert node_texts[-1] == node_words
    assert messages[-1]["role"] == "assistant" and messages[-1]["content"] == "Trip plan written."
    assert messages[-1]["subagentRunId"] not in (None, held_owner), "the writer is a subagent of its own"


@pytest.mark.parametrize("name", NAMES)
async def test_live_team_pause_and_resume_equal_the_replay_of_their_recordings(name: str, tmp_path: Path) -> None:
    scenario = BY_NAME[name]
    sessions = FileSessions(tmp_path / "sessions")
    first = pause_input()
    with Recorder(tmp_path / "pause.jsonl", input_data=first) as recorder:
        adapter = StrandsAgent(scenario.agent(), config=scenario.config, sessions=sessions, id_factory=pinned_ids())
        paused_events = dump_events([e async for e in adapter.run(first, recorder=recorder)])
    held = assert_valid_stream(paused_events, input=wire(first))["messages"]
    assert list((tmp_path / "sessions").glob("session_*/multi_agents/*/multi_agent.json")), "the team is parked"
    second = resume_input(held, scenario.resume_entries(paused_events[-1]["outcome"]["interrupts"]))
    with Recorder(tmp_path / "resume.jsonl", input_data=second) as recorder:
        other = StrandsAgent(scenario.agent(), config=scenario.config, sessions=sessions, id_factory=pinned_ids())
        resumed = dump_events([e async for e in other.run(second, recorder=recorder)])  # as if on another worker
    assert resumed[-1]["type"] == "RUN_FINISHED" and resumed[-1]["outcome"]["type"] == "success"
    for log, live in (("pause", paused_events), ("resume", resumed)):
        again = StrandsAgent(scenario.agent(), config=scenario.config, id_factory=pinned_ids())
        assert dump_events([e async for e in again.replay(read_log(tmp_path / f"{log}.jsonl"))]) == live
    assert not list((tmp_path / "sessions").glob("session_*")), "a finished thread keeps no pause state"


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
async def test_in_steps_mode_the_node_pause_and_resume_are_steps(name: str, tmp_path: Path) -> None:
    scenario = BY_NAME[name]
    config = replace(scenario.config, multiagent_events="steps")
    adapter = StrandsAgent(scenario.agent(), config=config, sessions=FileSessions(tmp_path))
    first = pause_input()
    events = await collected(adapter, first)
    held = assert_valid_stream(events, input=wire(first))["messages"]
    assert [e["stepName"] for e in events if e["type"].startswith("STEP_")] == ["agent:traveller"] * 2
    interrupts = events[-1]["outcome"]["interrupts"]
    assert "subagentRunId" not in interrupts[0] and interrupts[0]["toolCallId"]
    second = resume_input(held, scenario.resume_entries(interrupts))
    resumed = await collected(adapter, second)
    final = assert_valid_stream(resumed, input=wire(second))
    assert final["outcome"] == "success" and final["messages"][-1]["content"] == "Trip plan written."
    assert [m["content"] for m in final["messages"] if m["role"] == "tool"][0] == FINAL[name][0]


# -- the approval gate on node agents ---------------------------------------------------------------------
async def test_a_node_tool_gated_by_interrupt_on_call_runs_only_once_approved(tmp_path: Path) -> None:
    adapter, events, held, _ = await paused(tmp_path)
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    assert interrupt["reason"] == "tool_approval" and interrupt["responseSchema"] == approval_schema(
        hitl_scenarios.book_flight.tool_spec["inputSchema"]["json"])
    assert hitl_scenarios.EXECUTIONS == []
    done = await collected(adapter, resume_input(held, approve([interrupt])))
    assert code(done) is None and hitl_scenarios.EXECUTIONS == ["book_flight:Lisbon"]


async def test_a_rejected_node_call_is_cancelled_and_the_team_goes_on(tmp_path: Path) -> None:
    adapter, events, held, _ = await paused(tmp_path)
    done = await collected(adapter, resume_input(held, approve(events[-1]["outcome"]["interrupts"],
                                                         {"approved": False, "reason": "too pricey"})))
    assert code(done) is None and hitl_scenarios.EXECUTIONS == []
    results = [e["content"] for e in done if e["type"] == "TOOL_CALL_RESULT"]
    assert json.loads(results[0]) == "The user rejected this call to book_flight; it did not run. Reason: too pricey"


# -- the resume contract, as for a single agent ------------------------------------------------------------
async def test_an_identical_resume_twice_runs_the_node_tool_once(tmp_path: Path) -> None:
    adapter, events, held, sessions = await paused(tmp_path)
    resume = resume_input(held, approve(events[-1]["outcome"]["interrupts"]))
    assert code(await collected(adapter, resume)) is None
    assert code(await collected(adapter, resume)) == "INTERRUPT_NOT_FOUND"
    assert hitl_scenarios.EXECUTIONS == ["book_flight:Lisbon"] and sessions.paused_at("thread-hitl") is None


@pytest.mark.parametrize(("case", "expected"), [("wrong-shape", "RESUME_INVALID"), ("unknown", "INTERRUPT_NOT_FOUND"),
                                                ("new-message", "RESUME_INVALID"), ("busy", "THREAD_BUSY")])
async def test_a_wrong_resume_is_refused_and_the_team_stays_resumable(tmp_path: Path, case: str,
                                                                        expected: str) -> None:
    adapter, events, held, sessions = await paused(tmp_path)
    interrupts = events[-1]["outcome"]["interrupts"]
    entries = {"wrong-shape": approve(interrupts, {"approved": "yes"}),
               "unknown": [{"interruptId": "v1:nope", "status": "resolved", "payload": {"approved": True}}]
               }.get(case, approve(interrupts))
    extra = [{"id": "user-2", "role": "user", "content": "and a hotel"}] if case == "new-message" else []
    if case == "busy":
        with sessions.hold("thread-hitl"):
            refused = await collected(adapter, resume_input(held, entries))
    else:
        refused = await collected(adapter, resume_input(held + extra, entries))
    assert code(refused) == expected
    check_ag_ui_validate(refused)
    ok = await collected(adapter, resume_input(held, approve(interrupts)))
    assert code(ok) is None and hitl_scenarios.EXECUTIONS == ["book_flight:Lisbon"]


async def test_an_expired_team_pause_is_refused_and_removed(tmp_path: Path) -> None:
    adapter, events, held, sessions = await paused(tmp_path, retention_seconds=0.0)
    assert code(await collected(adapter, resume_input(held, approve(events[-1]["outcome"]["interrupts"])))) \
        == "INTERRUPT_EXPIRED"
    assert sessions.paused_at("thread-hitl") is None and hitl_scenarios.EXECUTIONS == []


# -- two Graph nodes interrupting in one batch -------------------------------------------------------------
def budget_node(city: str) -> Agent:
    def script(messages: Any) -> Any:
        if any("toolResult" in b for b in messages[-1]["content"]):
            return follow_up(messages)
        return [ToolUse("ask_budget", {"trip": city}, tool_use_id=f"tool-{city}")]

    return Agent(name=city, model=ScriptedModel(script), tools=[ask_budget], callback_handler=None)


async def test_parallel_graph_nodes_each_suspend_and_each_resume_under_its_own_id(tmp_path: Path) -> None:
    builder = GraphBuilder()
    builder.add_node(Agent(name="writer", model=ScriptedModel(lambda _: [Text("Both planned.")]),
                           callback_handler=None), "writer")
    for city in ("Lisbon", "Porto"):
        builder.add_node(budget_node(city), city)
        builder.add_edge(city, "writer")
    builder.set_max_node_executions(6)
    adapter = StrandsAgent(builder.build(), sessions=FileSessions(tmp_path))
    first = pause_input()
    events = await collected(adapter, first)
    held = assert_valid_stream(events, input=wire(first))["messages"]
    interrupts = events[-1]["outcome"]["interrupts"]
    owners = {e["name"]: e["subagentRunId"] for e in events if e["type"] == "SUBAGENT_STARTED"}
    assert {(i["toolCallId"], i["subagentRunId"]) for i in interrupts} == {
        (f"tool-{city}", owners[city]) for city in ("Lisbon", "Porto")}
    answers = [{"interruptId": i["id"], "status": "resolved",
                "payload": {"amount": 100 if "Lisbon" in i["id"] else 200}} for i in interrupts]
    assert code(await collected(adapter, resume_input(held, answers[:1]))) == "RESUME_INCOMPLETE"
    second = resume_input(held, answers)
    resumed = await collected(adapter, second)
    final = assert_valid_stream(resumed, input=wire(second))
    again = {e["name"]: e["subagentRunId"] for e in resumed if e["type"] == "SUBAGENT_STARTED"}
    assert again["Lisbon"] == owners["Lisbon"] and again["Porto"] == owners["Porto"]
    tools = {m["toolCallId"]: (m["content"], m["subagentRunId"]) for m in final["messages"] if m["role"] == "tool"}
    assert tools == {"tool-Lisbon": ('"The budget for Lisbon is 100 EUR."', owners["Lisbon"]),
                     "tool-Porto": ('"The budget for Porto is 200 EUR."', owners["Porto"])}
    assert final["outcome"] == "success" and final["messages"][-1]["content"] == "Both planned."


async def test_a_new_message_instead_of_a_resume_abandons_the_team_pause(tmp_path: Path) -> None:
    adapter, _, _, sessions = await paused(tmp_path)
    plain = StrandsAgent(BY_NAME["swarm_approval"].agent(), sessions=sessions)  # no approval: it just runs
    events = await collected(plain, pause_input())
    assert code(events) is None and events[-1]["outcome"]["type"] == "success"
    assert sessions.paused_at("thread-hitl") is None and hitl_scenarios.EXECUTIONS == ["book_flight:Lisbon"]


# -- a BeforeNodeCallEvent hook's interrupt ------------------------------------------------------------------
def ask_before_writing(event: BeforeNodeCallEvent) -> None:
    answer = event.interrupt("writer_ok", reason="May the writer start?") if event.node_id == "writer" else None
    if event.node_id == "writer" and answer != {"response": "yes"}:
        event.cancel_node = "the user said no"


@pytest.mark.parametrize("team", ["swarm", "graph"])
async def test_a_node_hook_interrupt_pauses_before_the_node_and_the_resume_runs_it(tmp_path: Path,
                                                                                  team: str) -> None:
    source = HitlScenario("gate", [Text("Nothing to ask."), *([HANDOFF] if team == "swarm" else [])], [],
                          team=team).agent()
    source.hooks.add_callback(BeforeNodeCallEvent, ask_before_writing)
    seen: list[Any] = []
    source.nodes["writer"].executor.model = ScriptedModel(lambda m: seen.append(m) or [Text("Trip plan written.")])
    adapter = StrandsAgent(source, sessions=FileSessions(tmp_path))
    earlier = [{"id": "user-0", "role": "user", "content": "Hi"},
               {"id": "a-0", "role": "assistant", "content": "Hello"}]
    asked = wire(pause_input())
    first = RunAgentInput.model_validate({**asked, "messages": [*earlier, *asked["messages"]]})
    events = await collected(adapter, first)
    held = assert_valid_stream(events, input=wire(first))["messages"]
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    assert (interrupt["reason"], interrupt["message"]) == ("writer_ok", "May the writer start?") and seen == []
    writer = [e["subagentRunId"] for e in events if e["type"] == "SUBAGENT_STARTED" and e["name"] == "writer"]
    # a Graph starts the node before its hook runs (suspended subagent); a Swarm asks before the node starts
    assert interrupt.get("subagentRunId") == (writer[0] if team == "graph" else None)
    second = resume_input(held, [{"interruptId": interrupt["id"], "status": "resolved", "payload": "yes"}])
    final = assert_valid_stream(await collected(adapter, second), input=wire(second))
    assert final["outcome"] == "success" and final["messages"][-1]["content"] == "Trip plan written."
    texts = [b.get("text") for m in seen[0] for b in m["content"]]
    assert texts[:2] == ["Hi", "Hello"], "the resumed team's nodes start from the conversation before the task"


# -- expiresAt ----------------------------------------------------------------------------------------------
async def test_interrupts_expire_when_the_store_forgets_the_pause(tmp_path: Path) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    _, events, _, sessions = await paused(tmp_path, retention_seconds=3600.0)
    after = datetime.now(UTC)
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    expires = datetime.fromisoformat(interrupt["expiresAt"].replace("Z", "+00:00"))
    assert before.timestamp() + 3600 <= expires.timestamp() <= after.timestamp() + 3600
    assert sessions.expires_at(sessions.paused_at("thread-hitl") or 0) >= expires.timestamp()  # type: ignore[operator]
    _, forever, _, _ = await paused(tmp_path / "forever", retention_seconds=float("inf"))
    assert "expiresAt" not in forever[-1]["outcome"]["interrupts"][0]


def test_serve_pause_retention_reaches_the_default_store(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RETENTION_ENV, "90")
    assert default_store().retention_seconds == 90.0
    monkeypatch.setenv(RETENTION_ENV, "soon")  # a wrong value is refused when the store is chosen, never in a run
    with pytest.raises(ValueError, match="STRANDS_AGUI_PAUSE_RETENTION='soon'"):
        default_store()


# -- over HTTP, across two servers sharing the session directory ---------------------------------------------
@pytest.mark.parametrize("name", ["swarm_approval", "graph_tool_interrupt"])
def test_a_team_paused_on_one_server_resumes_on_another(tmp_path: Path, name: str) -> None:
    scenario: HitlScenario = BY_NAME[name]

    def app() -> Any:
        adapter = StrandsAgent(scenario.agent(), config=scenario.config, sessions=FileSessions(tmp_path / "s"))
        return create_strands_app(adapter, path="/team")

    with LiveServer(app()) as a, LiveServer(app()) as b:
        first = wire(pause_input("served-team"))
        events = post_events(a.url + "/team", first)
        held = assert_valid_stream(events, input=first)["messages"]
        interrupts = events[-1]["outcome"]["interrupts"]
        resume = wire(resume_input(held, scenario.resume_entries(interrupts), thread_id="served-team"))
        done = post_events(b.url + "/team", resume)
        final = assert_valid_stream(done, input=resume)
        assert final["outcome"] == "success" and final["messages"][-1]["content"] == "Trip plan written."
        again = post_events(a.url + "/team", resume)
        assert again[-1]["type"] == "RUN_ERROR" and again[-1]["code"] == "INTERRUPT_NOT_FOUND"
    assert not list((tmp_path / "s").glob("session_*"))
