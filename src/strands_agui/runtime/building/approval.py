"""The approval gate for ``ToolBehavior(interrupt_on_call=True)``: a ``BeforeToolCallEvent`` hook the adapter
installs on every run agent (and on every node agent of a Swarm or Graph). Before a gated tool runs it raises
a Strands interrupt (``tool_approval``) whose reason carries the AG-UI ``message`` and ``responseSchema``; on
resume the answer decides: ``approved: true`` lets the tool run, anything else cancels the call the Strands
way (``cancel_tool``) with a result that tells the model why.

The answer is ``{approved, reason?, arguments?}`` (:func:`approval_schema`): ``arguments``, checked against the
tool's own input schema with the rest of the answer (``core/interrupts``: a mismatch is ``RESUME_INVALID``),
replaces the call's input when approved, so the tool runs with what the user edited. The resume's input is
rewritten the same way before the run (:func:`with_edited_arguments`), so the client's history (the resume's
``MESSAGES_SNAPSHOT``) and the model's show the arguments that actually ran.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

import jsonschema
from ag_ui.core import AssistantMessage, RunAgentInput
from strands import Agent
from strands.hooks import BeforeToolCallEvent
from strands.multiagent.base import MultiAgentBase

from ...config import StrandsAgentConfig
from ...core.interrupt_map import APPROVAL, APPROVAL_SCHEMA, CANCELLED


class ApprovalGate:
    """Asks before each call of ``tools`` runs."""

    def __init__(self, tools: Collection[str]) -> None:
        self.tools = frozenset(tools)

    def __call__(self, event: BeforeToolCallEvent) -> None:
        name = str(event.tool_use.get("name", ""))
        if name not in self.tools or event.cancel_tool:
            return
        tool_input = event.tool_use.get("input", {})
        spec: Mapping[str, Any] = event.selected_tool.tool_spec if event.selected_tool is not None else {}
        answer = event.interrupt(APPROVAL, reason={
            "message": f"Allow {name} to run with {json.dumps(tool_input, default=str)}?",
            "responseSchema": approval_schema((spec.get("inputSchema") or {}).get("json")),
            "tool": name, "input": tool_input,
        })
        if isinstance(answer, Mapping) and answer.get("approved") is True:
            if isinstance(answer.get("arguments"), Mapping):
                event.tool_use["input"] = dict(answer["arguments"])  # in place: the model's history shows it too
            return
        event.cancel_tool = refusal(name, answer)


def approval_schema(input_schema: Any) -> dict[str, Any]:
    """The approval's ``responseSchema``: ``{approved, reason?, arguments?}``, ``arguments`` being the tool's
    input schema (any object when the tool has none)."""
    arguments = dict(input_schema) if isinstance(input_schema, Mapping) else {"type": "object"}
    return {**APPROVAL_SCHEMA, "properties": {**APPROVAL_SCHEMA["properties"], "arguments": arguments}}


APPROVAL_ID = "v1:before_tool_call:{tool_use_id}:"
"""How Strands names an interrupt raised before a call (``BeforeToolCallEvent._interrupt_id``): the call's id
is in it, which is how a resume's answer finds the client's tool call."""


def with_edited_arguments(input_data: RunAgentInput, agent: Any) -> RunAgentInput:
    """``input_data`` with each parked call that a resume approves with ``arguments`` showing them. Arguments
    that do not match the tool's input schema (``agent``'s, when it is an ``Agent``) are left out: that resume
    ends with ``RESUME_INVALID`` and nothing runs."""
    edits = {entry.interrupt_id: dict(entry.payload["arguments"]) for entry in input_data.resume or ()
             if entry.status == "resolved" and isinstance(entry.payload, Mapping)
             and entry.payload.get("approved") is True and isinstance(entry.payload.get("arguments"), Mapping)}
    if not edits:
        return input_data
    registry = agent.tool_registry.registry if isinstance(agent, Agent) else {}
    messages = [_edited(message, edits, registry) for message in input_data.messages]
    return input_data.model_copy(update={"messages": messages})


def _edited(message: Any, edits: Mapping[str, dict[str, Any]], tools: Mapping[str, Any]) -> Any:
    if not isinstance(message, AssistantMessage) or not message.tool_calls:
        return message
    calls = []
    for call in message.tool_calls:
        prefix = APPROVAL_ID.format(tool_use_id=call.id)
        edit = next((args for interrupt_id, args in edits.items() if interrupt_id.startswith(prefix)), None)
        if edit is None or not _fits(edit, tools.get(call.function.name)):
            calls.append(call)
            continue
        function = call.function.model_copy(update={"arguments": json.dumps(edit)})
        calls.append(call.model_copy(update={"function": function}))
    return message.model_copy(update={"tool_calls": calls})


def _fits(arguments: dict[str, Any], tool: Any) -> bool:
    schema = (getattr(tool, "tool_spec", None) or {}).get("inputSchema", {}).get("json")
    return not isinstance(schema, Mapping) or jsonschema.validators.validator_for(schema)(schema).is_valid(arguments)


def refusal(tool_name: str, answer: Any) -> str:
    """What the model reads as the cancelled call's result."""
    if answer == CANCELLED:
        return f"The user cancelled the approval of {tool_name}; it did not run."
    reason = answer.get("reason") if isinstance(answer, Mapping) else None
    text = f"The user rejected this call to {tool_name}; it did not run."
    return f"{text} Reason: {reason}" if isinstance(reason, str) and reason else text


def gated_tools(config: StrandsAgentConfig) -> frozenset[str]:
    """The tools whose behaviour sets ``interrupt_on_call`` (a run's plan holds them)."""
    return frozenset(name for name, behavior in config.tool_behaviors.items() if behavior.interrupt_on_call)


def install_approval(agent: Agent | MultiAgentBase, gated: Collection[str]) -> None:
    """Register the gate on ``agent`` (on each node agent of a Swarm or Graph, nested ones included) for the
    ``gated`` tools (the plan's, :func:`gated_tools`)."""
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
