"""Run inspection (``server/console/inspector.py``): the trace and the log as CUSTOM events, opt-in twice (server and
request), valid for both oracles, and faithful: the log replays to the same AG-UI events and the same trace.

Each example is served over real HTTP (loopback) by ``examples.demo.build_app()``, whose endpoints enable
inspection; the scripted scenarios play the model.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from strands_agui.examples import (
    agentic_chat,
    agentic_generative_ui,
    backend_tool_rendering,
    human_in_the_loop,
    shared_state,
)
from strands_agui.runtime.recordings import read_log
from strands_agui.server.console.inspector import LOG_EVENT, TRACE_EVENT
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.replay import replay_to_list
from tests.oracles import assert_valid_sse
from tests.support.live import LiveServer
from tests.support.servers import served_examples
from tests.support.trace import assert_legal
from tests.support.wire import post_events, post_run, sse_events

EXAMPLES = {
    "/agentic_chat": (agentic_chat, "please make the background blue"),
    "/backend_tool_rendering": (backend_tool_rendering, "what is the weather in Paris?"),
    "/shared_state": (shared_state, "make it a vegetarian pasta recipe"),
    "/agentic_generative_ui": (agentic_generative_ui, "plan a trip: book flights, pack, and then fly"),
    "/human_in_the_loop": (human_in_the_loop, "book me a flight to Oslo"),  # the run that pauses
}
INSPECT = {"strandsAgui": {"inspect": True}}


@pytest.fixture(scope="module")
def served() -> Iterator[LiveServer]:
    with served_examples(paced=False) as server:
        yield server


def inspected_input(path: str, forwarded: Any = None) -> dict[str, Any]:
    module, prompt = EXAMPLES[path]
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in module.FRONTEND_TOOLS]
    return {"threadId": f"t{path.replace('/', '-')}", "runId": "run-1",
            "messages": [{"id": "u1", "role": "user", "content": prompt}],
            "state": dict(getattr(module, "INITIAL_STATE", {})), "tools": tools, "context": [],
            "forwardedProps": forwarded if forwarded is not None else INSPECT}


def customs(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "CUSTOM" and e["name"] == name]


@pytest.mark.slow
@pytest.mark.parametrize("path", list(EXAMPLES))
def test_inspected_run_is_valid_and_its_log_replays_to_the_same_run(served: LiveServer, path: str) -> None:
    body = inspected_input(path)
    sse = post_run(served.url + path, body, timeout=60).text
    report = assert_valid_sse(sse, input=body)  # both oracles, CUSTOM events included
    events = sse_events(sse)
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] in {"RUN_FINISHED", "RUN_ERROR"}
    assert events[-2]["type"] == "CUSTOM" and events[-2]["name"] == LOG_EVENT, "the log comes just before the end"

    steps = [step for e in customs(events, TRACE_EVENT) for step in e["value"]["steps"]]
    transitions = [(t["cause"], t["trigger"], t["state"]) for s in steps for t in s["transitions"]]
    assert_legal(transitions)
    log = read_log(customs(events, LOG_EVENT)[0]["value"]["log"].splitlines())
    assert [s["event"] for s in steps if s["event"] is not None] == list(log.events)

    module, _ = EXAMPLES[path]
    trace: list[tuple[str, str, str]] = []
    replayed = [e.model_dump(mode="json", by_alias=True, exclude_none=True)
                for e in replay_to_list(log, config=module.agent.config, trace=trace)]
    assert trace == transitions
    live = [e for e in events if e["type"] != "CUSTOM" or e["name"] not in {TRACE_EVENT, LOG_EVENT}]
    assert [e["type"] for e in replayed] == [e["type"] for e in live]
    assert report["messages"], "the official client rebuilt the conversation"


def test_a_trace_step_comes_before_the_events_it_produced(served: LiveServer) -> None:
    events = post_events(served.url + "/backend_tool_rendering", inspected_input("/backend_tool_rendering"), timeout=60)
    last_moves: list[str] = []
    for event in events:
        if event["type"] == "CUSTOM" and event["name"] == TRACE_EVENT:
            last_moves = [t["trigger"] for s in event["value"]["steps"] for t in s["transitions"]] or last_moves
        elif event["type"] == "TEXT_MESSAGE_START":
            assert "open_text" in last_moves
        elif event["type"] == "TOOL_CALL_START":
            assert "open_tool_call" in last_moves
        elif event["type"] == "RUN_FINISHED":
            assert last_moves[-1] == "finish"


@pytest.mark.parametrize("forwarded", [{}, None, {"strandsAgui": {"inspect": "yes"}}, {"strandsAgui": True}])
def test_no_inspection_unless_the_request_asks(served: LiveServer, forwarded: Any) -> None:
    body = inspected_input("/backend_tool_rendering", forwarded={} if forwarded is None else forwarded)
    if forwarded is None:
        body.pop("forwardedProps")
    events = post_events(served.url + "/backend_tool_rendering", body, timeout=60)
    assert not [e for e in events if e["type"] == "CUSTOM" and e["name"].startswith("strands_agui.")]


def test_no_inspection_unless_the_server_enables_it() -> None:
    app = FastAPI()
    add_strands_fastapi_endpoint(app, backend_tool_rendering.agent, "/plain")  # inspect defaults to False
    with LiveServer(app) as server:
        events = post_events(server.url + "/plain", inspected_input("/backend_tool_rendering"), timeout=60)
    assert events[-1]["type"] == "RUN_FINISHED"
    assert not [e for e in events if e["type"] == "CUSTOM"]


def test_an_oversized_log_is_announced_not_sent() -> None:
    import asyncio

    from ag_ui.core import RunAgentInput

    from strands_agui.server.console.inspector import inspected_run

    async def collect() -> list[Any]:
        data = RunAgentInput.model_validate(inspected_input("/backend_tool_rendering"))
        return [e async for e in inspected_run(backend_tool_rendering.agent, data, max_log_bytes=100)]

    log = [e for e in asyncio.run(collect()) if getattr(e, "name", None) == LOG_EVENT]
    assert log[0].value["log"] is None and log[0].value["truncated"] is True and log[0].value["bytes"] > 100


@pytest.mark.slow
def test_a_paused_and_resumed_run_each_carry_a_log_that_replays(served: LiveServer) -> None:
    """human_in_the_loop: the pause, then the approving resume; each run's log replays to its own run."""
    body = {**inspected_input("/human_in_the_loop"), "threadId": "t-pause-and-resume"}
    paused_sse = post_run(served.url + "/human_in_the_loop", body, timeout=60).text
    held = assert_valid_sse(paused_sse, input=body)["messages"]  # what the official client holds after the pause
    paused = sse_events(paused_sse)
    interrupt = paused[-1]["outcome"]["interrupts"][0]
    resume = {**body, "runId": "run-2", "messages": held,
              "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]}
    resumed = post_events(served.url + "/human_in_the_loop", resume, timeout=60)
    assert resumed[-1]["type"] == "RUN_FINISHED", resumed[-3:]
    assert resumed[-1].get("outcome", {"type": "success"})["type"] == "success"
    for events in (paused, resumed):
        steps = [step for e in customs(events, TRACE_EVENT) for step in e["value"]["steps"]]
        transitions = [(t["cause"], t["trigger"], t["state"]) for s in steps for t in s["transitions"]]
        log = read_log(customs(events, LOG_EVENT)[0]["value"]["log"].splitlines())
        trace: list[tuple[str, str, str]] = []
        replayed = replay_to_list(log, config=human_in_the_loop.agent.config, trace=trace)
        assert trace == transitions
        live = [e["type"] for e in events if e["type"] != "CUSTOM" or e["name"] not in {TRACE_EVENT, LOG_EVENT}]
        assert [e.type.value for e in replayed] == live


def test_a_swarm_runs_trace_holds_each_nodes_own_machine(served: LiveServer) -> None:
    """The run's trace is its own machine; each node's machine (a run one level down) is in ``subagents``,
    attributed by name, and is itself a legal walk of the same table from idle to finished."""
    body = {"threadId": "t-swarm", "runId": "run-1", "messages": [{"id": "u1", "role": "user", "content": "billing"}],
            "state": {}, "tools": [], "context": [], "forwardedProps": INSPECT}
    events = post_events(served.url + "/multi_agent", body, timeout=60)
    steps = [step for trace in customs(events, TRACE_EVENT) for step in trace["value"]["steps"]]
    assert_legal([(t["cause"], t["trigger"], t["state"]) for s in steps for t in s["transitions"]])
    nodes: dict[str, list[tuple[str, str, str]]] = {}
    for step in steps:
        for move in step.get("subagents", []):
            assert step["event"]["type"] in ("multiagent_node_start", "multiagent_node_stream", "multiagent_node_stop")
            nodes.setdefault(move["subagent"], []).append((move["cause"], move["trigger"], move["state"]))
    assert sorted(nodes) == ["researcher", "writer"]
    for moves in nodes.values():
        assert_legal(moves)
        assert moves[-1][1:] == ("finish", "finished")
    assert ("contentBlockDelta", "open_text", "streaming_text") in nodes["writer"]


def test_a_declined_input_is_a_step_of_the_inspectors_trace() -> None:
    """A Strands input the state could not take (a citation before its block's text: ``tests/core/test_declined.py``)
    is a step whose ``declined`` list names it and whose ``transitions`` are empty: the event moved nothing."""
    import asyncio

    from strands import Agent

    from strands_agui import StrandsAgent
    from strands_agui.server.console.inspector import inspected_run
    from strands_agui.tooling.scripted import Cited, ScriptedModel, Text
    from tests.support.scenarios import run_input

    script = [Cited("", ({"title": "Atlas", "location": {}},)), Text("Paris.")]
    agent = StrandsAgent(Agent(model=ScriptedModel([script]), callback_handler=None))

    async def run() -> list[Any]:
        return [event async for event in inspected_run(agent, run_input())]

    events = asyncio.run(run())
    steps = [step for e in events if getattr(e, "name", None) == TRACE_EVENT for step in e.value["steps"]]
    declined = [(d["trigger"], d["cause"], d["state"]) for step in steps for d in step.get("declined", ())]
    assert declined == [("text_delta", "contentBlockDelta.citation", "ready")]
    [step] = [step for step in steps if step.get("declined")]
    assert step["event"] is not None and step["transitions"] == []
    assert events[-1].type.value == "RUN_FINISHED"
