"""Per-run copies of a user's Strands agent: what a run's agent (``run_agent.py``) and each node agent of a
Swarm/Graph (``multiagent.py``) are built with, so no run touches the template itself.

The copy is the agent: every parameter of ``Agent.__init__`` is either carried from the template or excluded for a
stated reason, in the one table :data:`OPTIONS` (``tests/runtime/building/test_copying.py`` fails when a Strands release
adds a parameter the table does not name). What keeps per-agent state is not shared between runs: the background-tasks
plugin, the context manager and the memory manager are built afresh from the template's configuration (as Strands
builds them from the constructor's arguments), and the user's plugins, intervention handlers, context strategies
and the retry strategy are deep copies (:func:`per_run_instance`: models, tools, storage, sandbox and the template
itself stay shared; an object that must be shared defines ``__deepcopy__`` returning itself). The copy holds none
of the template's history or invocation state.
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from strands import Agent
from strands._context_manager.context_manager import ContextManager
from strands._context_manager.strategies.offload.truncate import EmergencyTruncateStrategy
from strands.agent._agent_as_tool import _AgentAsTool
from strands.agent._agent_delegation import AgentDelegation
from strands.agent.conversation_manager import SlidingWindowConversationManager
from strands.event_loop._retry import ModelRetryStrategy
from strands.hooks import HookRegistry
from strands.memory import MemoryManager
from strands.models.model import _ModelPlugin

logger = logging.getLogger(__name__)

AGENTIC_CONTEXT_TOOLS = ("summarize_context", "truncate_context", "pin_context")


@dataclass(frozen=True)
class Carried:
    """The copy gets ``read(template)`` for this parameter."""

    read: Callable[[Agent], Any]


@dataclass(frozen=True)
class Excluded:
    """The copy does not take this parameter from the template, for the reason ``why``; it gets ``value`` when
    one is given (else Strands' default, unless the caller overrides it)."""

    why: str
    value: Any = None
    given: bool = False


def _conversation_manager(template: Agent) -> Any:
    # A context manager (or a stateful model) owns context reduction; Strands refuses or ignores a second one.
    if template._context_manager_instance is not None or template.model.stateful:
        return None
    manager = template.conversation_manager
    if type(manager) is SlidingWindowConversationManager:  # Strands' default: built from its configuration
        threshold = manager._compression_threshold
        return SlidingWindowConversationManager(
            manager.window_size, manager.should_truncate_results, per_turn=manager.per_turn,
            pin_first=manager.pin_first,
            proactive_compression=None if threshold is None else {"compression_threshold": threshold})
    return copy.deepcopy(manager)


def _retry_strategy(template: Agent) -> Any:
    strategy = template._retry_strategy
    if type(strategy) is ModelRetryStrategy:  # Strands' default: built from its configuration
        return ModelRetryStrategy(max_attempts=strategy._max_attempts, initial_delay=strategy._initial_delay,
                                  max_delay=strategy._max_delay)
    return per_run_instance(strategy, template)


def _context_manager(template: Agent) -> Any:
    manager = template._context_manager_instance
    if manager is None:
        return None
    if _is_agentic(template):
        return "agentic"  # the preset: Strands adds its tools and token-usage middleware itself
    if type(manager) is not ContextManager:
        return per_run_instance(manager, template)
    stash: Any = False
    if not manager._stash_disabled:
        stash = {"retrieval_tool": manager._enable_retrieval_tool}
        if manager._stash_explicit_storage is not None:
            stash["storage"] = manager._stash_explicit_storage
    strategies = [per_run_instance(s, template) for s in manager._strategies
                  if not isinstance(s, EmergencyTruncateStrategy)]  # Strands appends its own
    return ContextManager(strategies=strategies, stash=stash)


def _memory_manager(template: Agent) -> Any:
    manager = template.memory_manager
    if manager is None or type(manager) is not MemoryManager:
        return None if manager is None else per_run_instance(manager, template)
    return MemoryManager(manager._stores, search_tool_config=manager._search_tool_config,
                         add_tool_config=manager._add_tool_config, injection=manager._injection_config)


def _background_tasks(template: Agent) -> Any:
    plugin = template._background_tasks
    return None if plugin is None else dict(plugin._config)


def _plugins(template: Agent) -> list[Any] | None:
    plugins = [per_run_instance(p, template) for p in template._plugin_registry._plugins.values()
               if not _built_in(template, p)]
    return plugins or None


def _interventions(template: Agent) -> list[Any] | None:
    handlers = [per_run_instance(h, template) for h in template._intervention_registry.handlers]
    return handlers or None


# Agent.__init__ parameter -> how the copy gets it. One entry per parameter, in the signature's order.
OPTIONS: dict[str, Carried | Excluded] = {
    "model": Carried(lambda t: t._model_router or t.model),  # a ModelRouter routes each run's calls
    "messages": Excluded("the run's own history (the client's messages, or the thread's): an override"),
    "tools": Carried(lambda t: template_tools(t)),
    "system_prompt": Carried(lambda t: t.system_prompt_content),  # content blocks keep cache points
    "structured_output_model": Carried(lambda t: t._default_structured_output_model),
    "callback_handler": Excluded("the adapter streams the run (stream_async); no printing", value=None, given=True),
    "conversation_manager": Carried(_conversation_manager),  # a deep copy: it keeps per-agent counters
    "record_direct_tool_call": Carried(lambda t: t.record_direct_tool_call),
    "load_tools_from_directory": Excluded("the template's tools (those loaded too) are copied; no watcher per run"),
    "trace_attributes": Carried(lambda t: t.trace_attributes),
    "baggage_attributes": Carried(lambda t: dict(t.baggage_attributes)),
    "aux_model": Carried(lambda t: t._aux_model),
    "agent_id": Carried(lambda t: t.agent_id),
    "name": Carried(lambda t: t.name),
    "description": Carried(lambda t: t.description),
    "state": Carried(lambda t: t.state.get()),  # a deep copy already (and Agent copies it once more)
    "context_manager": Carried(_context_manager),  # fresh: it keeps the agent's stash
    "plugins": Carried(_plugins),  # the user's, per run; Strands adds its built-ins itself
    "hooks": Excluded("every callback of the template's registry is copied by copy_hook_callbacks"),
    "interventions": Carried(_interventions),  # per run: handlers keep counts (cedar) and seen ids (hitl)
    "session_manager": Excluded("the run's own thread session (session_provider.py), never the template's"),
    "memory_manager": Carried(_memory_manager),  # fresh: it keeps the agent's extraction buffer
    "structured_output_prompt": Carried(lambda t: t._structured_output_prompt),
    "tool_executor": Carried(lambda t: t.tool_executor),
    "retry_strategy": Carried(_retry_strategy),  # it counts a run's attempts
    "concurrent_invocation_mode": Carried(lambda t: t._concurrency._mode),
    "checkpointing": Carried(lambda t: t._checkpointing),
    "sandbox": Carried(lambda t: t._sandbox),
    "storage": Carried(lambda t: t._storage),
    "background_tasks": Carried(_background_tasks),  # its config: Strands builds a fresh plugin per agent
}


def copy_agent(template: Agent, **overrides: Any) -> Agent:
    """A new ``Agent`` with the template's configuration (:data:`OPTIONS`) and none of its history or
    invocation state."""
    settings: dict[str, Any] = {}
    for parameter, option in OPTIONS.items():
        if isinstance(option, Carried):
            settings[parameter] = option.read(template)
        elif option.given:
            settings[parameter] = option.value
    settings.update(overrides)
    agent = Agent(**settings)
    # The template's session manager is not the run's (OPTIONS): neither are the hooks it registered.
    copy_hook_callbacks(template.hooks, agent.hooks, not_of=template._session_manager)
    return agent


def template_tools(template: Agent) -> list[Any]:
    """The template's tools as one run uses them (:func:`per_run_tool`), without those the copy's own
    construction registers again: its plugins' (background tasks, memory, context retrieval, the user's) and
    the agentic context-management tools."""
    own = {tool.tool_name for plugin in template._plugin_registry._plugins.values() for tool in plugin.tools}
    if _is_agentic(template):
        own.update(AGENTIC_CONTEXT_TOOLS)
    return [per_run_tool(tool) for name, tool in template.tool_registry.registry.items() if name not in own]


def per_run_instance(obj: Any, template: Agent) -> Any:
    """A copy of a plugin, intervention handler or context strategy for one run: a deep copy in which the
    template agent, its models, tools, executor, sandbox and storage stay shared. An object that cannot be
    deep-copied (it holds a lock or a client) is shared, with a warning; one that must be shared on purpose
    defines ``__deepcopy__`` returning itself."""
    shared = [template, template.model, template._aux_model, template._model_router, template._sandbox,
              template._storage, template._session_manager, template.tool_executor, template.hooks,
              *template.tool_registry.registry.values()]
    memo = {id(o): o for o in shared if o is not None}
    try:
        return copy.deepcopy(obj, memo)
    except Exception as error:  # noqa: BLE001 - any failure of a user's object to copy: share it instead
        if type(obj) not in _SHARED_WARNED:  # once per class, not once per run
            _SHARED_WARNED.add(type(obj))
            logger.warning("%s cannot be copied per run (%s: %s); every run shares it (define __deepcopy__ "
                           "returning self to share it on purpose)", type(obj).__name__, type(error).__name__, error)
        return obj


_SHARED_WARNED: set[type] = set()


def _built_in(template: Agent, plugin: Any) -> bool:
    """A plugin Strands registers itself from another parameter (or on every agent)."""
    return (isinstance(plugin, (_ModelPlugin, AgentDelegation))
            or any(plugin is p for p in (template._model_router, template._background_tasks,
                                         template._context_manager_instance, template.memory_manager)))


def _is_agentic(template: Agent) -> bool:
    from strands._context_manager.modes.agentic import agentic_context

    registry = template.tool_registry.registry
    return all(registry.get(name) is getattr(agentic_context, name) for name in AGENTIC_CONTEXT_TOOLS)


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


def copy_hook_callbacks(template: HookRegistry, registry: HookRegistry, not_of: Any = None) -> None:
    """Register on ``registry`` the template callbacks a freshly built one does not have (the user's). A
    callback is known by its qualified name, so the hooks a carried plugin, intervention registry, conversation
    manager or retry strategy registered on the copy are not registered a second time (bound to the
    template's instance). Callbacks of ``not_of`` (an object the copy does not carry) are not copied."""
    fresh = registry._registered_callbacks
    for event_type, entries in template._registered_callbacks.items():
        known = {_callback_name(entry.callback) for entry in fresh.get(event_type, ())}
        for entry in entries:
            if _callback_name(entry.callback) not in known and (not_of is None or not _of(entry.callback, not_of)):
                registry.add_callback(event_type, entry.callback, order=entry.order)


def _of(callback: Any, owner: Any) -> bool:
    """``callback`` is a method of ``owner`` or a function closing over it (Strands' session hooks are lambdas)."""
    if getattr(callback, "__self__", None) is owner:
        return True
    for cell in getattr(callback, "__closure__", None) or ():
        try:
            if cell.cell_contents is owner:
                return True
        except ValueError:  # an empty cell
            continue
    return False


def _callback_name(callback: Any) -> str:
    func = getattr(callback, "__func__", callback)
    return f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', repr(func))}"
