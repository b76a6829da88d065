"""A Strands ``Swarm`` or ``Graph`` as a run's source: one fresh orchestrator per run, built from the template.

A Swarm or Graph keeps its node agents between invocations (a Graph never resets them, a Swarm resets them to
what they held when it was built) and a node agent refuses a second concurrent invocation. So, as with a plain
agent, no run touches the template: each run gets a new orchestrator of the same shape whose node agents are
copies (``copying.copy_agent``) holding the client's conversation as their starting history. The template's
orchestrator hooks are registered on the copy; its session manager and plugins are not (a per-run factory
builds those when a run needs them).

The run's task is the new user turn: its text when it is text only, else its content blocks.
"""

from __future__ import annotations

import copy
from typing import Any

from ag_ui.core import RunAgentInput, UserMessage
from strands import Agent
from strands.multiagent import Swarm
from strands.multiagent.base import MultiAgentBase
from strands.multiagent.graph import Graph, GraphEdge, GraphNode

from .conversation import to_strands
from .copying import copy_agent, copy_hook_callbacks, template_tools

HANDOFF_TOOL = "handoff_to_agent"  # what a Swarm injects into every node agent


def copy_orchestrator(template: MultiAgentBase, history: list[dict[str, Any]] | None) -> MultiAgentBase:
    """A new Swarm or Graph of the template's shape, its node agents copied with ``history``."""
    if isinstance(template, Swarm):
        return _copy_swarm(template, history)
    if isinstance(template, Graph):
        return _copy_graph(template, history)
    raise TypeError(f"cannot copy a {type(template).__name__} per run; pass a factory that builds one")


def task_of(prompt: list[dict[str, Any]] | None, default: str) -> str | list[dict[str, Any]]:
    """The orchestrator's task: the prompt's text when it holds only text, else its content blocks."""
    if not prompt:
        return default
    if all(set(block) == {"text"} for block in prompt):
        return "\n".join(str(block["text"]) for block in prompt)
    return prompt


def paused_history(input_data: RunAgentInput) -> list[dict[str, Any]]:
    """The conversation a paused Swarm/Graph run started from, as a resume carries it: every message before
    the last user message (the paused run's task; what follows it is the paused run's own work, which the
    session restores)."""
    messages = list(input_data.messages)
    last = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=0)
    return to_strands(messages[:last])


def _copy_swarm(template: Swarm, history: list[dict[str, Any]] | None) -> Swarm:
    entry = template.entry_point.name if template.entry_point is not None else None
    nodes = [copy_agent(node.executor, tools=_own_tools(node.executor), messages=_history(history))
             for node in template.nodes.values()]
    swarm = Swarm(
        nodes, entry_point=next((n for n in nodes if n.name == entry), None), max_handoffs=template.max_handoffs,
        max_iterations=template.max_iterations, execution_timeout=template.execution_timeout,
        node_timeout=template.node_timeout,
        repetitive_handoff_detection_window=template.repetitive_handoff_detection_window,
        repetitive_handoff_min_unique_agents=template.repetitive_handoff_min_unique_agents, id=template.id,
        trace_attributes=template.trace_attributes,
    )
    _copy_hooks(template, swarm)
    return swarm


def _copy_graph(template: Graph, history: list[dict[str, Any]] | None) -> Graph:
    nodes = {node_id: GraphNode(node_id, _copy_executor(node.executor, history))
             for node_id, node in template.nodes.items()}
    for node_id, node in template.nodes.items():
        nodes[node_id].dependencies = {nodes[dep.node_id] for dep in node.dependencies}
    edges = {GraphEdge(nodes[e.from_node.node_id], nodes[e.to_node.node_id], e.condition) for e in template.edges}
    graph = Graph(
        nodes, edges, {nodes[n.node_id] for n in template.entry_points},
        max_node_executions=template.max_node_executions, execution_timeout=template.execution_timeout,
        node_timeout=template.node_timeout, reset_on_revisit=template.reset_on_revisit, id=template.id,
        trace_attributes=template.trace_attributes,
    )
    _copy_hooks(template, graph)
    return graph


def _copy_executor(executor: Any, history: list[dict[str, Any]] | None) -> Any:
    if isinstance(executor, Agent):
        return copy_agent(executor, messages=_history(history))
    if isinstance(executor, MultiAgentBase):
        return copy_orchestrator(executor, history)
    raise TypeError(f"cannot copy a graph node of type {type(executor).__name__} per run; pass a factory")


def _own_tools(agent: Agent) -> list[Any]:
    """The node agent's tools without the template Swarm's handoff tool (the copy's Swarm injects its own)."""
    return [t for t in template_tools(agent) if t.tool_name != HANDOFF_TOOL]


def _history(history: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return copy.deepcopy(history) if history else []


def _copy_hooks(template: MultiAgentBase, fresh: MultiAgentBase) -> None:
    copy_hook_callbacks(template.hooks, fresh.hooks)  # type: ignore[attr-defined]
