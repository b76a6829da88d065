"""Nested runs reach the client: tool progress, agents as tools, Swarm and Graph nodes (recorded real runs).

Each replay passes both oracles (``test_golden``); here we assert what the official client ends up holding.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent
from strands.multiagent import Swarm

from strands_agui import StrandsAgent, StrandsAgentConfig
from strands_agui.runtime.recordings import read_log
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from strands_agui.tooling.testing import dump_events
from tests.oracles import assert_valid_streams
from tests.support import replays
from tests.support.multi_scenarios import NESTED
from tests.support.paths import TESTS
from tests.support.scenarios import run_input
from tests.support.wire import of_type

ROOT = TESTS


@cache
def replayed(name: str) -> list[dict[str, Any]]:
    """One replay per scenario, so ids agree between the client's report and the events (read-only)."""
    return dump_events(replays.replayed(name))


@pytest.fixture(scope="module")
def clients() -> dict[str, dict[str, Any]]:
    """The official client's report (its messages, outcome) for every nested scenario, in one batch."""
    names = list(NESTED)
    reports = assert_valid_streams([replayed(name) for name in names])
    return dict(zip(names, reports, strict=True))


def by_owner(messages: list[dict[str, Any]]) -> dict[str | None, list[dict[str, Any]]]:
    owners: dict[str | None, list[dict[str, Any]]] = {}
    for message in messages:
        owners.setdefault(message.get("subagentRunId"), []).append(message)
    return owners


@pytest.mark.slow
def test_streaming_tool_progress_is_an_activity_tied_to_the_call(clients: dict[str, Any]) -> None:
    messages = clients["streaming_tool"]["messages"]
    call = next(m for m in messages if m.get("toolCalls"))["toolCalls"][0]
    activity = next(m for m in messages if m["role"] == "activity")
    assert activity["activityType"] == "tool_progress"
    assert activity["content"] == {"toolCallId": call["id"], "toolName": "count_down",
                                   "events": [{"remaining": 3}, {"remaining": 2}, {"remaining": 1},
                                              "lift-off after 3"]}
    assert next(m for m in messages if m["role"] == "tool")["content"] == '"lift-off after 3"'  # a JSON string


@pytest.mark.slow
def test_agent_as_tool_is_a_subagent_of_its_call(clients: dict[str, Any]) -> None:
    events = replayed("agent_as_tool")
    started = of_type(events, "SUBAGENT_STARTED")[0]
    call = of_type(events, "TOOL_CALL_START")[0]
    assert started["name"] == "researcher" and started["parentToolCallId"] == call["toolCallId"]
    assert started["parentMessageId"] == call["parentMessageId"]
    assert of_type(events, "SUBAGENT_FINISHED") == [{"type": "SUBAGENT_FINISHED", "subagentRunId":
                                                     started["subagentRunId"], "result": "The answer is 42.\n"}]
    owners = by_owner(clients["agent_as_tool"]["messages"])
    inner = owners[started["subagentRunId"]]
    assert [m.get("content") for m in inner if m["role"] == "assistant"] == ["Looking it up.", "The answer is 42."]
    assert [c["function"]["name"] for m in inner for c in m.get("toolCalls", [])] == ["lookup"]
    assert [m["content"] for m in inner if m["role"] == "tool"] == ['"answer: 42"']
    outer = owners[None]
    assert [m["content"] for m in outer if m["role"] == "tool"] == ['"The answer is 42.\\n"']
    assert outer[-1]["content"] == "The researcher says 42."


@pytest.mark.slow
def test_a_failing_agent_as_tool_is_a_subagent_error(clients: dict[str, Any]) -> None:
    events = replayed("agent_as_tool_error")
    error = of_type(events, "SUBAGENT_ERROR")[0]
    assert error["message"] == "Agent error: helper broke" and error["code"] == "TOOL_FAILED"
    assert events[-1]["type"] == "RUN_FINISHED"
    assert clients["agent_as_tool_error"]["messages"][-1]["content"] == "The researcher failed."


@pytest.mark.slow
def test_swarm_nodes_are_subagents_and_the_handoff_is_on_the_next_one(clients: dict[str, Any]) -> None:
    events = replayed("swarm_handoff")
    researcher, writer = of_type(events, "SUBAGENT_STARTED")
    assert (researcher["name"], writer["name"]) == ("researcher", "writer")
    assert "metadata" not in researcher
    assert writer["metadata"] == {"handoff": {"from": ["researcher"], "to": ["writer"],
                                              "message": "Write up: the answer is 42"}}
    assert [e["result"] for e in of_type(events, "SUBAGENT_FINISHED")] == [
        "Handed to the writer.", "The answer is 42, as researched."]
    owners = by_owner(clients["swarm_handoff"]["messages"])
    assert [m["content"] for m in owners[None]] == ["What is the answer?"]
    research = owners[researcher["subagentRunId"]]
    assert [c["function"]["name"] for m in research for c in m.get("toolCalls", [])] == ["lookup", "handoff_to_agent"]
    assert [m.get("content") for m in owners[writer["subagentRunId"]]] == ["The answer is 42, as researched."]
    assert clients["swarm_handoff"]["outcome"] == "success"


@pytest.mark.slow
def test_a_failed_swarm_node_is_visible_and_the_swarm_ends_as_strands_decides(clients: dict[str, Any]) -> None:
    events = replayed("swarm_node_fails")
    writer = of_type(events, "SUBAGENT_STARTED")[1]
    error = of_type(events, "SUBAGENT_ERROR")
    assert error == [{"type": "SUBAGENT_ERROR", "subagentRunId": writer["subagentRunId"],
                      "message": "RuntimeError: writer broke", "code": "NODE_FAILED"}]
    assert events[-1]["type"] == "RUN_FINISHED"  # a Swarm swallows a node's failure
    draft = by_owner(clients["swarm_node_fails"]["messages"])[writer["subagentRunId"]]
    assert [m["content"] for m in draft] == ["Drafting"]


@pytest.mark.slow
def test_a_swarm_node_cancelled_by_a_hook_is_shown_failed(clients: dict[str, Any]) -> None:
    events = replayed("swarm_node_cancelled")
    writer = of_type(events, "SUBAGENT_STARTED")[1]
    assert writer["name"] == "writer" and writer["metadata"]["handoff"]["from"] == ["researcher"]
    assert of_type(events, "SUBAGENT_ERROR") == [{"type": "SUBAGENT_ERROR", "subagentRunId": writer["subagentRunId"],
                                                  "message": "the writer is off today", "code": "NODE_CANCELLED"}]
    assert writer["subagentRunId"] not in by_owner(clients["swarm_node_cancelled"]["messages"])  # it never ran


@pytest.mark.slow
def test_graph_nodes_are_subagents(clients: dict[str, Any]) -> None:
    events = replayed("graph_parallel")
    started = {e["name"]: e for e in of_type(events, "SUBAGENT_STARTED")}
    assert set(started) == {"plan", "left", "right"}
    assert started["left"]["metadata"]["handoff"]["from"] == ["plan"]
    owners = by_owner(clients["graph_parallel"]["messages"])
    texts = {name: "".join(m["content"] for m in owners[e["subagentRunId"]]) for name, e in started.items()}
    assert texts == {"plan": "Plan: two parts.", "left": "Left part done.", "right": "Right part done."}


@pytest.mark.slow
def test_a_failed_graph_node_is_visible_and_the_graph_run_fails(clients: dict[str, Any]) -> None:
    events = replayed("graph_node_fails")
    left = next(e for e in of_type(events, "SUBAGENT_STARTED") if e["name"] == "left")
    assert [e for e in of_type(events, "SUBAGENT_ERROR") if e["subagentRunId"] == left["subagentRunId"]][0][
        "message"] == "RuntimeError: left broke"
    assert {k: events[-1][k] for k in ("type", "message", "code")} == {
        "type": "RUN_ERROR", "message": "RuntimeError: left broke", "code": "STRANDS_ERROR"}
    assert clients["graph_node_fails"]["outcome"] == "run_error"


# -- usage: the run's model calls, its subagents' included ------------------------------------------------------
def recorded(name: str) -> tuple[dict[str, Any], ...]:
    return read_log(ROOT / "fixtures" / f"{name}.jsonl").events


def tokens(usage: list[dict[str, Any]] | dict[str, Any]) -> tuple[int, int, int]:
    entries = usage if isinstance(usage, list) else [usage]
    return tuple(sum(e[k] for e in entries) for k in ("inputTokens", "outputTokens", "totalTokens"))  # type: ignore


@pytest.mark.slow
@pytest.mark.parametrize("name", ["swarm_handoff", "swarm_node_fails", "swarm_node_cancelled", "swarm_steps",
                                  "graph_parallel", "graph_steps"])
def test_a_multi_agent_runs_usage_is_strands_accumulated_usage(name: str, clients: dict[str, Any]) -> None:
    """Strands sums its nodes' usage into the multi-agent result; the client holds the same totals (node
    events are the only source read, so nothing is counted twice), under the nodes' model."""
    [strands] = [e["result"]["accumulated_usage"] for e in recorded(name) if e.get("type") == "multiagent_result"]
    assert tokens(clients[name]["usage"]) == tokens(strands) and tokens(strands)[0] > 0
    assert [(u["provider"], u["model"]) for u in clients[name]["usage"]] == [("scriptedmodel", "scripted")]


@pytest.mark.slow
def test_a_failed_graph_reports_the_usage_of_the_nodes_that_ran(clients: dict[str, Any]) -> None:
    ran = [e["node_result"]["accumulated_usage"] for e in recorded("graph_node_fails")
           if e.get("type") == "multiagent_node_stop" and e["node_result"]["status"] == "completed"]
    assert clients["graph_node_fails"]["run_error"]["code"] == "STRANDS_ERROR"
    assert tokens(clients["graph_node_fails"]["usage"]) == tuple(map(sum, zip(*map(tokens, ran), strict=True)))


@pytest.mark.slow
def test_an_agent_tools_model_calls_count_in_the_runs_usage(clients: dict[str, Any]) -> None:
    """Strands leaves the inner agent out of the caller's ``accumulated_usage``; AG-UI's run usage covers "calls
    made by its subagents", so the client holds both."""
    events = recorded("agent_as_tool")
    [outer] = [e["result"]["accumulated_usage"] for e in events if set(e) == {"result"}]
    inner = [e["tool_stream_event"]["data"]["event"]["metadata"]["usage"] for e in events
             if e.get("type") == "tool_stream" and "metadata" in e["tool_stream_event"]["data"].get("event", {})]
    assert len(inner) == 2  # the researcher's two model calls
    expected = tuple(map(sum, zip(tokens(outer), *map(tokens, inner), strict=True)))
    assert tokens(clients["agent_as_tool"]["usage"]) == expected and expected[0] > tokens(outer)[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["swarm_steps", "graph_steps"])
def test_steps_mode_takes_upstreams_shape(name: str, clients: dict[str, Any]) -> None:
    events = replayed(name)
    assert not [e for e in events if e["type"].startswith("SUBAGENT")]
    steps = [e["stepName"] for e in of_type(events, "STEP_STARTED")]
    assert steps == [e["stepName"] for e in of_type(events, "STEP_FINISHED")]
    assert steps[0] == ("agent:researcher" if name == "swarm_steps" else "agent:plan")
    handoff = of_type(events, "CUSTOM")[0]
    assert handoff["name"] == "MultiAgentHandoff" and handoff["value"]["from_nodes"] == [steps[0].split(":")[1]]
    assert all("subagentRunId" not in m for m in clients[name]["messages"])


# -- live: a fresh orchestrator per run, history, factories -----------------------------------------------------
def echo_model(name: str) -> ScriptedModel:
    """Answers with how many messages it was sent and the first one's text (so history is visible)."""
    def turn(messages: list[dict[str, Any]]) -> list[Any]:
        first = messages[0]["content"][0]["text"]
        return [Text(f"{name} saw {len(messages)} messages, first: {first}")]
    return ScriptedModel(turn)


def two_node_swarm() -> Swarm:
    def researcher_turn(messages: list[dict[str, Any]]) -> list[Any]:
        if any("toolResult" in b for b in messages[-1]["content"]):
            return [Text("handed over")]
        return [ToolUse("handoff_to_agent", {"agent_name": "writer", "message": "go"})]
    researcher = Agent(name="researcher", model=ScriptedModel(researcher_turn), callback_handler=None)
    writer = Agent(name="writer", model=echo_model("writer"), callback_handler=None)
    return Swarm([researcher, writer])


def texts_of(events: list[Any]) -> dict[str, str]:
    wire = dump_events(events)
    names = {e["subagentRunId"]: e["name"] for e in of_type(wire, "SUBAGENT_STARTED")}
    out: dict[str, str] = {}
    for e in of_type(wire, "TEXT_MESSAGE_CONTENT"):
        name = names[e["subagentRunId"]]
        out[name] = out.get(name, "") + e["delta"]
    return out


async def run_all(adapter: StrandsAgent, data: RunAgentInput) -> list[Any]:
    return [e async for e in adapter.run(data)]


async def test_a_template_swarm_serves_concurrent_runs_each_on_its_own_copy() -> None:
    template = two_node_swarm()
    adapter = StrandsAgent(template)
    first, second = await asyncio.gather(run_all(adapter, run_input("one")), run_all(adapter, run_input("two")))
    for events in (first, second):
        assert dump_events(events)[-1]["type"] == "RUN_FINISHED"
    for events in (first, second):  # each writer starts afresh: only its own context, no other run's turns
        assert texts_of(events)["writer"].startswith("writer saw 1 messages, first: Context:\nHandoff Message: go")
    assert "User Request: one" in texts_of(first)["writer"] and "User Request: two" in texts_of(second)["writer"]
    assert all(node.executor.messages == [] for node in template.nodes.values())
    assert "handoff_to_agent" in template.nodes["writer"].executor.tool_names  # the template keeps its own tool


@pytest.mark.slow
async def test_node_agents_start_from_the_clients_conversation() -> None:
    data = RunAgentInput.model_validate({
        "threadId": "t", "runId": "r", "state": None, "tools": [], "context": [], "forwardedProps": {},
        "messages": [{"id": "u1", "role": "user", "content": "earlier question"},
                     {"id": "a1", "role": "assistant", "content": "earlier answer"},
                     {"id": "u2", "role": "user", "content": "now"}]})
    events = await run_all(StrandsAgent(two_node_swarm()), data)
    assert texts_of(events)["writer"].startswith("writer saw 3 messages, first: earlier question")


async def test_a_factory_may_return_a_graph() -> None:
    from tests.support.multi_scenarios import graph

    events = dump_events(await run_all(StrandsAgent(lambda _input: graph()), run_input("go")))
    assert sorted(e["name"] for e in of_type(events, "SUBAGENT_STARTED")) == ["left", "plan", "right"]
    assert events[-1]["type"] == "RUN_FINISHED"


async def test_a_factory_taking_nothing_is_called_without_the_input() -> None:
    """Upstream ``ag_ui_strands`` accepts ``StrandsAgent(agent=_build_graph)`` (the Dojo's multi-agent server):
    a factory of no argument. Before, ours called it with the RunAgentInput: RUN_ERROR, TypeError."""
    from tests.support.multi_scenarios import graph

    events = dump_events(await run_all(StrandsAgent(graph), run_input("go")))
    assert sorted(e["name"] for e in of_type(events, "SUBAGENT_STARTED")) == ["left", "plan", "right"]
    assert events[-1]["type"] == "RUN_FINISHED"


def test_multiagent_events_must_be_a_known_shape() -> None:
    with pytest.raises(ValueError, match="multiagent_events"):
        StrandsAgentConfig(multiagent_events="nodes")  # type: ignore[arg-type]


@pytest.mark.slow
async def test_the_multi_agent_example_shows_both_nodes_progress_and_the_handoff() -> None:
    from strands_agui.examples import multi_agent
    from tests.oracles import assert_valid_stream

    adapter = multi_agent.build_agent(env={"STRANDS_AGUI_SCRIPTED_DELAY": "0"})
    for question in ("the billing service", "the search index"):  # each run on its own copy of the Swarm
        events = await run_all(adapter, run_input(question))
        client = assert_valid_stream(events)
        wire = dump_events(events)
        researcher, writer = of_type(wire, "SUBAGENT_STARTED")
        assert writer["metadata"]["handoff"]["from"] == ["researcher"]
        owners = by_owner(client["messages"])
        activity = next(m for m in owners[researcher["subagentRunId"]] if m["role"] == "activity")
        assert activity["content"]["events"][:3] == [{"searching": "wiki"}, {"searching": "tickets"},
                                                     {"searching": "meeting notes"}]
        answer = owners[writer["subagentRunId"]][-1]["content"]
        assert answer.startswith(f"Here is what the team knows about {question}:")


async def test_concurrent_runs_each_call_their_own_copy_of_an_agent_tool() -> None:
    def helper_turn(messages: list[dict[str, Any]]) -> list[Any]:
        return [Text(f"helper saw {len(messages)} messages")]

    def parent_turn(messages: list[dict[str, Any]]) -> list[Any]:
        if any("toolResult" in b for b in messages[-1]["content"]):
            return [Text("done")]
        return [ToolUse("helper", {"input": "help"})]

    helper = Agent(name="helper", model=ScriptedModel(helper_turn), callback_handler=None)
    template = Agent(model=ScriptedModel(parent_turn), tools=[helper.as_tool()], callback_handler=None)
    adapter = StrandsAgent(template)
    runs = await asyncio.gather(*(run_all(adapter, run_input(f"run {n}")) for n in range(3)))
    for events in runs:
        wire = dump_events(events)
        assert [e["result"] for e in of_type(wire, "SUBAGENT_FINISHED")] == ["helper saw 1 messages\n"]
        assert not of_type(wire, "SUBAGENT_ERROR")  # none was "already processing a request"
    assert helper.messages == []
