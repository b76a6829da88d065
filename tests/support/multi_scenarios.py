"""Recorded scenarios of nested runs: a streaming tool, agents as tools, a Swarm and a Graph (scripted models).

Each builder returns a fresh source (its scripted models start at their first turn), as ``Scenario.agent()``
does for a plain agent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from strands import Agent, tool
from strands.hooks import BeforeNodeCallEvent
from strands.multiagent import GraphBuilder, Swarm

from strands_agui import StrandsAgentConfig
from strands_agui.tooling.scripted import Fail, ScriptedModel, Text, ToolUse


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return f"{term}: 42"


@tool
async def count_down(start: int) -> AsyncIterator[Any]:
    """Count down, reporting each step."""
    for n in range(start, 0, -1):
        yield {"remaining": n}
    yield f"lift-off after {start}"


def _agent(name: str, turns: list[Any], tools: list[Any] | None = None, description: str | None = None) -> Agent:
    return Agent(name=name, description=description, model=ScriptedModel(turns), tools=tools or [],
                 callback_handler=None)


def streaming_tool() -> Agent:
    return _agent("launcher", [[Text("Counting down."), ToolUse("count_down", {"start": 3}, tool_use_id="tool-count")],
                               [Text("We have lift-off.")]], [count_down])


def agent_as_tool(fail: bool = False) -> Agent:
    inner = [[Fail(RuntimeError("helper broke"))]] if fail else [
        [Text("Looking it up."), ToolUse("lookup", {"term": "answer"}, tool_use_id="tool-lookup")],
        [Text("The answer is 42.")]]
    helper = _agent("researcher", inner, [lookup], description="Finds facts")
    return _agent("orchestrator", [[Text("Asking the researcher."),
                                    ToolUse("researcher", {"input": "find the answer"}, tool_use_id="tool-research")],
                                   [Text("The researcher says 42." if not fail else "The researcher failed.")]],
                  [helper.as_tool()])


def swarm(writer_fails: bool = False) -> Swarm:
    researcher = _agent("researcher", [
        [Text("Let me look."), ToolUse("lookup", {"term": "answer"}, tool_use_id="tool-lookup")],
        [ToolUse("handoff_to_agent", {"agent_name": "writer", "message": "Write up: the answer is 42"},
                 tool_use_id="tool-handoff")],
        [Text("Handed to the writer.")]], [lookup], description="Finds facts")
    writer_turns = [[Text("Drafting"), Fail(RuntimeError("writer broke"))]] if writer_fails else [
        [Text("The answer is 42, as researched.")]]
    writer = _agent("writer", writer_turns, description="Writes the answer")
    return Swarm([researcher, writer], max_handoffs=5, max_iterations=5)


def cancel_writer(event: BeforeNodeCallEvent) -> None:
    if event.node_id == "writer":
        event.cancel_node = "the writer is off today"


def swarm_cancelling_writer() -> Swarm:
    team = swarm()
    team.hooks.add_callback(BeforeNodeCallEvent, cancel_writer)
    return team


def graph(fail: bool = False) -> Any:
    builder = GraphBuilder()
    builder.add_node(_agent("plan", [[Text("Plan: two parts.")]]), "plan")
    builder.add_node(_agent("left", [[Fail(RuntimeError("left broke"))]] if fail else [[Text("Left part done.")]]),
                     "left")
    builder.add_node(_agent("right", [[Text("Right "), Text("part done.")]]), "right")
    builder.add_edge("plan", "left")
    builder.add_edge("plan", "right")
    builder.set_max_node_executions(10)
    return builder.build()


STEPS = StrandsAgentConfig(multiagent_events="steps")

# name -> (source builder, config)
NESTED: dict[str, tuple[Any, StrandsAgentConfig]] = {
    "streaming_tool": (streaming_tool, StrandsAgentConfig()),
    "agent_as_tool": (agent_as_tool, StrandsAgentConfig()),
    "agent_as_tool_error": (lambda: agent_as_tool(fail=True), StrandsAgentConfig()),
    "swarm_handoff": (swarm, StrandsAgentConfig()),
    "swarm_node_fails": (lambda: swarm(writer_fails=True), StrandsAgentConfig()),
    "swarm_steps": (swarm, STEPS),
    "swarm_node_cancelled": (swarm_cancelling_writer, StrandsAgentConfig()),
    "graph_parallel": (graph, StrandsAgentConfig()),
    "graph_node_fails": (lambda: graph(fail=True), StrandsAgentConfig()),
    "graph_steps": (graph, STEPS),
}
