"""Per-run copies of a user's Strands agent: what a run's agent (``agents.py``) and each node agent of a
Swarm/Graph (``multiagent.py``) are built with, so no run touches the template itself.

A copy takes the template's model, tools, system prompt, state, tool executor, identity and the hook
callbacks the user registered, and none of its history or invocation state.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from strands import Agent
from strands.agent._agent_as_tool import _AgentAsTool
from strands.hooks import HookRegistry


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
        "state": template.state.get(),  # a deep copy already (and Agent copies it once more)
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
