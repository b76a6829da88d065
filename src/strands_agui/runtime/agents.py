"""One Strands agent per run: built from the user's template (or factory), plus the run's frontend tools.

Strands raises ``ConcurrencyException`` when one ``Agent`` serves two invocations at once, and an agent
accumulates history; so no run ever touches the template itself. The template lends its model, tools,
system prompt, state, tool executor, identity and the hook callbacks the user registered.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any, TypeAlias

from ag_ui.core import RunAgentInput, Tool
from strands import Agent
from strands.agent._agent_as_tool import _AgentAsTool
from strands.hooks import HookRegistry
from strands.multiagent.base import MultiAgentBase
from strands.tools.tools import PythonAgentTool
from strands.types.tools import ToolResult, ToolUse

AgentFactory: TypeAlias = Callable[[RunAgentInput], "Agent | MultiAgentBase"]
AgentSource: TypeAlias = Agent | MultiAgentBase | AgentFactory

FRONTEND_TOOL_RESULT = "The client runs this tool; its result arrives with the client's next request."


def build_run_agent(source: AgentSource, input_data: RunAgentInput,
                    history: list[dict[str, Any]] | None = None) -> Agent | MultiAgentBase:
    """The agent one run uses: the factory's, or a fresh copy of the template, holding ``history`` (unless
    the factory's agent already holds a conversation of its own), the run's frontend tools, and the run's
    ``context`` appended to its system prompt (see :func:`with_context`). A Swarm or Graph template is copied
    by ``multiagent.copy_orchestrator``; a factory's orchestrator is used as built."""
    if isinstance(source, MultiAgentBase):
        from .multiagent import copy_orchestrator  # multiagent builds on this module

        return copy_orchestrator(source, history)
    agent = source(input_data) if not isinstance(source, Agent) else copy_agent(source)
    if isinstance(agent, MultiAgentBase):
        return agent
    if history and not agent.messages:
        agent.messages = history  # type: ignore[assignment]
    if input_data.context:
        agent.system_prompt = with_context(agent.system_prompt, input_data)
    backend = set(agent.tool_names)
    tools = [frontend_tool(tool) for tool in input_data.tools or () if tool.name not in backend]
    if tools:
        agent.tool_registry.process_tools(tools)
    return agent


CONTEXT_HEADING = "Context provided by the application:"


def with_context(system_prompt: str | None, input_data: RunAgentInput) -> str:
    """The run's system prompt: the agent's, then ``RunAgentInput.context`` as ``- description: value`` lines."""
    lines = [f"- {item.description}: {item.value}" for item in input_data.context or ()]
    return "\n\n".join(p for p in (system_prompt, "\n".join([CONTEXT_HEADING, *lines])) if p)


def copy_agent(template: Agent, **overrides: Any) -> Agent:
    """A new ``Agent`` with the template's configuration and none of its history or invocation state."""
    settings: dict[str, Any] = {
        "model": template.model,
        "tools": [per_run_tool(tool) for tool in template.tool_registry.registry.values()],
        "system_prompt": template.system_prompt,
        "callback_handler": None,
        "agent_id": template.agent_id,
        "name": template.name,
        "description": template.description,
        "state": copy.deepcopy(template.state.get()),
        "tool_executor": template.tool_executor,
        "trace_attributes": template.trace_attributes,
        "conversation_manager": copy.deepcopy(template.conversation_manager),
        "retry_strategy": template._retry_strategy,
        "structured_output_model": template._default_structured_output_model,
    }
    settings.update(overrides)
    agent = Agent(**settings)
    copy_hook_callbacks(template.hooks, agent.hooks)
    return agent


def per_run_tool(tool: Any) -> Any:
    """The tool as one run uses it. An agent called as a tool (``Agent.as_tool()``) serves one invocation at a
    time and starts each from its initial conversation, so each run calls its own copy of that agent (one that
    keeps its context across calls, ``preserve_context=True``, stays shared: its context is the point)."""
    if not isinstance(tool, _AgentAsTool) or tool._preserve_context:
        return tool
    fresh = copy.copy(tool)
    fresh._agent = copy_agent(tool.agent, messages=copy.deepcopy(tool._initial_messages))
    fresh._lock = threading.Lock()
    return fresh


def copy_hook_callbacks(template: HookRegistry, registry: HookRegistry) -> None:
    """Register on ``registry`` the template callbacks a freshly built one does not have (the user's)."""
    fresh = registry._registered_callbacks
    for event_type, entries in template._registered_callbacks.items():
        known = {_callback_name(entry.callback) for entry in fresh.get(event_type, ())}
        for entry in entries:
            if _callback_name(entry.callback) not in known:
                registry.add_callback(event_type, entry.callback, order=entry.order)


def _callback_name(callback: Any) -> str:
    func = getattr(callback, "__func__", callback)
    return f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', repr(func))}"


def frontend_tool(tool: Tool) -> PythonAgentTool:
    """A Strands tool standing for a tool the client executes: the model can call it; when the run goes on
    past the call (``continue_after_frontend_call``) it answers that the client will deliver the result."""
    spec = {
        "name": tool.name,
        "description": tool.description or tool.name,
        "inputSchema": {"json": tool.parameters or {"type": "object", "properties": {}}},
    }

    def run(tool_use: ToolUse, **_: Any) -> ToolResult:
        return {"toolUseId": tool_use["toolUseId"], "status": "success", "content": [{"text": FRONTEND_TOOL_RESULT}]}

    return PythonAgentTool(tool.name, spec, run)  # type: ignore[arg-type]
