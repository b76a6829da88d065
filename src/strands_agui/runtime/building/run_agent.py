"""One Strands agent per run: built from the user's template (or factory), plus the run's frontend tools.

Strands raises ``ConcurrencyException`` when one ``Agent`` serves two invocations at once, and an agent
accumulates history; so no run ever touches the template itself. The run's agent is a copy carrying every
constructor option of the template and the hook callbacks the user registered (``copying.py``: ``OPTIONS``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeAlias

from ag_ui.core import RunAgentInput, Tool
from strands import Agent
from strands.multiagent.base import MultiAgentBase
from strands.tools.tools import PythonAgentTool
from strands.types.tools import ToolResult, ToolUse

from ...errors import ConfigurationError
from .copying import copy_agent
from .multiagent import copy_orchestrator

AgentFactory: TypeAlias = Callable[[RunAgentInput], "Agent | MultiAgentBase"]
AgentSource: TypeAlias = Agent | MultiAgentBase | AgentFactory


def agent_source(agent: Any) -> AgentSource:
    """``agent`` as a run builds from it: a template as it is; a factory with a required positional parameter
    (or ``*args``) is called with the run's ``RunAgentInput``; any other factory (none, or only defaulted
    parameters: upstream ``ag_ui_strands`` calls a factory with nothing, e.g. the Dojo's multi-agent server's
    ``StrandsAgent(agent=_build_graph)``) is called with nothing."""
    if isinstance(agent, Agent | MultiAgentBase) or not callable(agent):
        return agent  # type: ignore[no-any-return]
    try:
        parameters = inspect.signature(agent).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: called with the input, as before
        return agent  # type: ignore[no-any-return]
    takes_input = any(p.kind is p.VAR_POSITIONAL or (p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                                     and p.default is p.empty) for p in parameters)
    if takes_input:
        return agent  # type: ignore[no-any-return]

    @functools.wraps(agent)
    def without_input(_input: RunAgentInput) -> Agent | MultiAgentBase:
        return agent()  # type: ignore[no-any-return]

    return without_input

FRONTEND_TOOL_RESULT = "The client runs this tool; its result arrives with the client's next request."


def build_run_agent(source: AgentSource, input_data: RunAgentInput,
                    history: list[dict[str, Any]] | None = None) -> Agent | MultiAgentBase:
    """The agent one run uses: the factory's, or a fresh copy of the template, holding ``history`` (unless
    the factory's agent already holds a conversation of its own), the run's frontend tools, and the run's
    ``context`` appended to its system prompt (see :func:`with_context`). A Swarm or Graph template is copied
    by ``multiagent.copy_orchestrator``; a factory's orchestrator is used as built."""
    if isinstance(source, MultiAgentBase):
        return copy_orchestrator(source, history)
    agent = source(input_data) if not isinstance(source, Agent) else copy_agent(source)
    if not isinstance(agent, Agent | MultiAgentBase):
        raise ConfigurationError(f"the agent factory returned {type(agent).__name__}, not a strands Agent, Swarm "
                                 "or Graph")
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
