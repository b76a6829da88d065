"""The approval gate for ``ToolBehavior(interrupt_on_call=True)``: a ``BeforeToolCallEvent`` hook the adapter
installs on every run agent (and on every node agent of a Swarm or Graph). Before a gated tool runs it raises
a Strands interrupt (``tool_approval``) whose reason carries the AG-UI ``message`` and ``responseSchema``; on
resume the answer decides: ``approved: true`` lets the tool run, anything else cancels the call the Strands
way (``cancel_tool``) with a result that tells the model why.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from strands import Agent
from strands.hooks import BeforeToolCallEvent
from strands.multiagent.base import MultiAgentBase

from ..config import StrandsAgentConfig
from ..core.interrupt_map import APPROVAL, APPROVAL_SCHEMA, CANCELLED


class ApprovalGate:
    """Asks before each call of ``tools`` runs."""

    def __init__(self, tools: Collection[str]) -> None:
        self.tools = frozenset(tools)

    def __call__(self, event: BeforeToolCallEvent) -> None:
        name = str(event.tool_use.get("name", ""))
        if name not in self.tools or event.cancel_tool:
            return
        tool_input = event.tool_use.get("input", {})
        answer = event.interrupt(APPROVAL, reason={
            "message": f"Allow {name} to run with {json.dumps(tool_input, default=str)}?",
            "responseSchema": APPROVAL_SCHEMA, "tool": name, "input": tool_input,
        })
        if isinstance(answer, Mapping) and answer.get("approved") is True:
            return
        event.cancel_tool = refusal(name, answer)


def refusal(tool_name: str, answer: Any) -> str:
    """What the model reads as the cancelled call's result."""
    if answer == CANCELLED:
        return f"The user cancelled the approval of {tool_name}; it did not run."
    reason = answer.get("reason") if isinstance(answer, Mapping) else None
    text = f"The user rejected this call to {tool_name}; it did not run."
    return f"{text} Reason: {reason}" if isinstance(reason, str) and reason else text


def install_approval(agent: Agent | MultiAgentBase, config: StrandsAgentConfig) -> None:
    """Register the gate on ``agent`` (on each node agent of a Swarm or Graph, nested ones included) when some
    tool behaviour sets ``interrupt_on_call``."""
    gated = [name for name, behavior in config.tool_behaviors.items() if behavior.interrupt_on_call]
    if gated:
        for each in node_agents(agent):
            each.hooks.add_callback(BeforeToolCallEvent, ApprovalGate(gated))


def node_agents(runner: Any) -> list[Agent]:
    """The Strands agents that run tools: the agent itself, or every node agent of a Swarm/Graph (other
    executors, e.g. an A2A agent, have none)."""
    if isinstance(runner, Agent):
        return [runner]
    nodes = getattr(runner, "nodes", None) if isinstance(runner, MultiAgentBase) else None
    return [agent for node in (nodes or {}).values() for agent in node_agents(node.executor)]
