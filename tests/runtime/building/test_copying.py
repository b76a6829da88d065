"""The copy is the agent: each run's agent carries every constructor option of the template (``copying.OPTIONS``),
and what keeps per-agent state is the run's own. Real ``strands.Agent`` runs on scripted models."""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from strands import Agent, tool
from strands.agent import ModelRetryStrategy
from strands.agent.conversation_manager import SlidingWindowConversationManager
from strands.interventions import Deny, InterventionHandler
from strands.memory import MemoryManager
from strands.models.routing import ModelRouter
from strands.plugins import Plugin
from strands.sandbox.not_a_sandbox_local_environment import NotASandboxLocalEnvironment
from strands.storage import InMemoryStorage
from strands.types.agent import ConcurrentInvocationMode

from strands_agui import StrandsAgent
from strands_agui.runtime.building import run_agent as agents_module
from strands_agui.runtime.building.copying import OPTIONS, Carried, Excluded
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from strands_agui.tooling.testing import dump_events
from tests.oracles import assert_valid_stream
from tests.support.scenarios import run_input


@tool
def book_flight(city: str) -> str:
    """Book a flight."""
    return f"Booked a flight to {city}"


def weather_then_done(messages: list[dict[str, Any]]) -> list[Any]:
    if "toolResult" in messages[-1]["content"][0]:
        return [Text("done")]
    return [ToolUse("book_flight", {"city": "Lisbon"})]


@pytest.fixture()
def run_agents(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Agent]]:
    """The agents the runs were given (each ``copy_agent`` result)."""
    built: list[Agent] = []
    original = agents_module.copy_agent

    def record(template: Agent, **overrides: Any) -> Agent:
        built.append(original(template, **overrides))
        return built[-1]
    monkeypatch.setattr(agents_module, "copy_agent", record)
    yield built


async def run(template: Agent, run_id: str = "run-1") -> list[dict[str, Any]]:
    data = run_input("book it").model_copy(update={"run_id": run_id})
    return dump_events([e async for e in StrandsAgent(template).run(data)])


def test_the_table_names_every_parameter_of_agent_init() -> None:
    """A Strands release that adds a constructor parameter fails here until the table carries or excludes it."""
    parameters = [p for p in inspect.signature(Agent.__init__).parameters if p != "self"]
    assert sorted(parameters) == sorted(OPTIONS), (
        f"not in copying.OPTIONS: {sorted(set(parameters) - set(OPTIONS))}; "
        f"no longer parameters: {sorted(set(OPTIONS) - set(parameters))}")
    assert all(isinstance(o, Excluded) and o.why for o in OPTIONS.values() if not isinstance(o, Carried))


class Counter(Plugin):
    """A user plugin keeping per-agent state (the agents it was attached to)."""

    name = "counter"

    def __init__(self) -> None:
        super().__init__()
        self.agents: list[Agent] = []

    def init_agent(self, agent: Agent) -> None:
        self.agents.append(agent)


class DenyBooking(InterventionHandler):
    name = "no-bookings"

    def __init__(self) -> None:
        self.seen: list[str] = []  # per-agent state: must not be shared by two runs

    def before_tool_call(self, event: Any, **_: Any) -> Deny | None:
        self.seen.append(event.tool_use["name"])
        return Deny("bookings are closed") if event.tool_use["name"] == "book_flight" else None


class Store:
    """A minimal read-only memory store (search only)."""

    name = "notes"
    writable = False
    extraction = None
    description = "notes"
    max_search_results = 5

    async def search(self, query: str, **_: Any) -> list[Any]:
        return []


async def test_every_carried_option_reaches_the_runs_agent(run_agents: list[Agent]) -> None:
    aux, sandbox, storage, plugin = ScriptedModel([]), NotASandboxLocalEnvironment(), InMemoryStorage(), Counter()
    router = ModelRouter([ScriptedModel(weather_then_done)])
    template = Agent(
        model=router, tools=[book_flight], callback_handler=None, aux_model=aux, sandbox=sandbox, storage=storage,
        plugins=[plugin], baggage_attributes={"tenant": "acme"}, record_direct_tool_call=False,
        structured_output_prompt="Format it.", concurrent_invocation_mode=ConcurrentInvocationMode.UNSAFE_REENTRANT,
        context_manager="auto", memory_manager=MemoryManager([Store()], injection=False),
        background_tasks={"never": ["book_flight"]}, interventions=[DenyBooking()], checkpointing=False,
        retry_strategy=ModelRetryStrategy(max_attempts=2, initial_delay=0))
    for run_id in ("run-1", "run-2"):
        assert (await run(template, run_id))[-1]["type"] == "RUN_FINISHED"
    first, second = run_agents
    for agent in run_agents:
        assert agent._model_router is router and agent._aux_model is aux
        assert agent.sandbox is sandbox and agent.storage is storage
        assert agent.baggage_attributes == {"tenant": "acme"} and agent.record_direct_tool_call is False
        assert agent._structured_output_prompt == "Format it."
        assert agent._concurrency._mode == ConcurrentInvocationMode.UNSAFE_REENTRANT
        assert set(agent._plugin_registry._plugins) >= {
            "counter", "strands:background-tasks", "strands:context-manager", "strands:model-router",
            memory_name(template)}
        assert agent._background_tasks is not None and agent._background_tasks._config == {"never": ["book_flight"]}
        assert [h.name for h in agent._intervention_registry.handlers] == ["no-bookings"]
        assert "search_memory" in agent.tool_names
    # What keeps per-agent state is each run's own, never the template's nor the other run's.
    for attribute in ("_background_tasks", "_context_manager_instance", "memory_manager"):
        assert len({id(getattr(a, attribute)) for a in (template, first, second)}) == 3, attribute
    plugins = [a._plugin_registry._plugins["counter"] for a in (template, first, second)]
    assert len({id(p) for p in plugins}) == 3 and [p.agents[-1] for p in plugins[1:]] == [first, second]
    assert second not in plugins[1].agents and first not in plugins[2].agents
    strategies = [a._retry_strategy for a in (template, first, second)]  # it counts one invocation's attempts
    assert len({id(s) for s in strategies}) == 3 and {s._max_attempts for s in strategies} == {2}
    handlers = [a._intervention_registry.handlers[0] for a in (template, first, second)]
    assert [h.seen for h in handlers] == [[], ["book_flight"], ["book_flight"]]


def memory_name(agent: Agent) -> str:
    assert agent.memory_manager is not None
    return agent.memory_manager.name


async def test_background_tasks_reach_the_runs_agent(run_agents: list[Agent]) -> None:
    template = Agent(model=ScriptedModel(weather_then_done), tools=[book_flight], callback_handler=None,
                     background_tasks=True)
    assert (await run(template))[-1]["type"] == "RUN_FINISHED"
    [agent] = run_agents
    assert agent._background_tasks is not None and agent._background_tasks is not template._background_tasks
    assert "strands:background-tasks" in agent._plugin_registry._plugins
    assert agent.tool_names.count("manage_background_task") <= 1  # the plugin's tool, registered once


async def test_checkpointing_reaches_strands(run_agents: list[Agent]) -> None:
    """With checkpointing on, Strands pauses the run's agent at the first cycle boundary (what AG-UI makes of a
    checkpoint is issue 29 item 4; here only that the option reaches Strands)."""
    template = Agent(model=ScriptedModel(weather_then_done), tools=[book_flight], callback_handler=None,
                     checkpointing=True)
    events = await run(template)
    [agent] = run_agents
    assert agent._checkpointing is True
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["metadata"]["stopReason"] == "checkpoint"


async def test_a_deny_intervention_on_the_template_denies_the_tool_in_a_run() -> None:
    template = Agent(model=ScriptedModel(weather_then_done), tools=[book_flight], callback_handler=None,
                     interventions=[DenyBooking()])
    data = run_input("book it")
    events = dump_events([e async for e in StrandsAgent(template).run(data)])
    report = assert_valid_stream(events, fail_on_run_error=True,
                                 input=data.model_dump(by_alias=True, exclude_none=True))
    [result] = [m for m in report["messages"] if m["role"] == "tool"]
    assert "DENIED: bookings are closed" in result["content"]
    assert not any("Booked a flight" in str(e) for e in events)  # the tool never ran
    assert template._intervention_registry.handlers[0].seen == []  # the run's own handler denied it


async def test_the_agentic_context_preset_is_carried_without_registering_its_tools_twice(
        run_agents: list[Agent]) -> None:
    template = Agent(model=ScriptedModel([[Text("hi")]]), callback_handler=None, context_manager="agentic")
    assert (await run(template))[-1]["type"] == "RUN_FINISHED"
    [agent] = run_agents
    assert {"summarize_context", "truncate_context", "pin_context"} <= set(agent.tool_names)
    assert agent._context_manager_instance not in (None, template._context_manager_instance)


async def test_the_templates_session_manager_never_sees_a_run(tmp_path: Any, run_agents: list[Agent]) -> None:
    """``session_manager`` is excluded (a run's session is its own: ``session_manager_provider``), and so are the
    hooks it registered on the template: the run's messages never reach the template's session."""
    from strands.session.file_session_manager import FileSessionManager

    manager = FileSessionManager(session_id="template", storage_dir=str(tmp_path))
    template = Agent(model=ScriptedModel(weather_then_done), tools=[book_flight], callback_handler=None,
                     session_manager=manager)
    assert (await run(template))[-1]["type"] == "RUN_FINISHED"
    [agent] = run_agents
    assert agent._session_manager is None
    assert manager.list_messages("template", template.agent_id) == []


class Pooled(Plugin):
    """A plugin holding what cannot be copied (a lock standing for a client or a pool)."""

    name = "pooled"

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()


class SharedOnPurpose(Plugin):
    name = "shared-on-purpose"

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedOnPurpose:
        return self


async def test_a_plugin_that_cannot_be_copied_is_shared_with_one_warning(
        run_agents: list[Agent], caplog: pytest.LogCaptureFixture) -> None:
    pooled, shared = Pooled(), SharedOnPurpose()
    template = Agent(model=ScriptedModel(lambda _m: [Text("hi")]), callback_handler=None, plugins=[pooled, shared])
    with caplog.at_level(logging.WARNING, logger="strands_agui.runtime.building.copying"):
        for run_id in ("run-1", "run-2"):
            assert (await run(template, run_id))[-1]["type"] == "RUN_FINISHED"
    assert all(a._plugin_registry._plugins["pooled"] is pooled for a in run_agents)
    assert all(a._plugin_registry._plugins["shared-on-purpose"] is shared for a in run_agents)
    [warning] = [r.getMessage() for r in caplog.records]
    assert warning.startswith("Pooled cannot be copied per run (TypeError:")


async def test_a_swarm_nodes_copy_carries_its_options_and_registers_plugin_tools_once() -> None:
    """A Swarm's node agents are copied per run too (``multiagent.py``): the node's background tasks and memory
    reach its copy, their tools registered by the copy's own plugins (not copied beside them: a duplicate name
    would fail the run)."""
    from strands.multiagent import Swarm

    from strands_agui.runtime.building.multiagent import copy_orchestrator

    node = Agent(name="solo", model=ScriptedModel(lambda _m: [Text("done alone")]), callback_handler=None,
                 background_tasks=True, memory_manager=MemoryManager([Store()], injection=False))
    template = Swarm([node], max_handoffs=2, max_iterations=2)
    events = dump_events([e async for e in StrandsAgent(template).run(run_input("go"))])
    assert events[-1]["type"] == "RUN_FINISHED"
    [copied] = [n.executor for n in copy_orchestrator(template, None).nodes.values()]
    assert copied is not node and copied._background_tasks not in (None, node._background_tasks)
    assert copied.memory_manager not in (None, node.memory_manager)
    assert copied.tool_names.count("search_memory") == 1


async def test_strands_default_managers_are_built_from_the_templates_configuration_with_no_counts(
        run_agents: list[Agent]) -> None:
    """The sliding window and the retry strategy (Strands' defaults) are built afresh from the template's
    configuration: its settings carried, none of what its own runs counted."""
    window = SlidingWindowConversationManager(7, False, per_turn=3, pin_first=1,
                                              proactive_compression={"compression_threshold": 0.5})
    window.removed_message_count, window._model_call_count = 5, 9  # as if the template had run
    retry = ModelRetryStrategy(max_attempts=2, initial_delay=1, max_delay=3)
    retry._current_attempt = 1
    template = Agent(model=ScriptedModel(weather_then_done), tools=[book_flight], callback_handler=None,
                     conversation_manager=window, retry_strategy=retry)
    assert (await run(template))[-1]["type"] == "RUN_FINISHED"
    copied, strategy = run_agents[0].conversation_manager, run_agents[0]._retry_strategy
    assert isinstance(copied, SlidingWindowConversationManager) and copied is not window
    assert (copied.window_size, copied.should_truncate_results, copied.per_turn, copied.pin_first,
            copied._compression_threshold) == (7, False, 3, 1, 0.5)
    assert copied.removed_message_count == 0 and window.removed_message_count == 5
    assert isinstance(strategy, ModelRetryStrategy) and strategy is not retry
    assert (strategy._max_attempts, strategy._initial_delay, strategy._max_delay) == (2, 1, 3)
    assert retry._current_attempt == 1
