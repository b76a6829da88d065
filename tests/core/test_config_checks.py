"""Configuration is checked when it is built (issue 27): a wrong type in ``ToolBehavior``, ``PredictStateMapping``,
``StrandsAgentConfig`` or ``StrandsAgent`` is a ``TypeError``/``ValueError`` naming the field and the type it
expects, at construction, never a failure in the middle of a run."""

from __future__ import annotations

from typing import Any

import pytest
from strands import Agent

from strands_agui import PredictStateMapping, StrandsAgent, StrandsAgentConfig, ToolBehavior
from strands_agui.tooling.scripted import ScriptedModel


def test_a_predict_state_dict_is_refused_when_the_behavior_is_built() -> None:
    """Upstream's own type is ``Iterable[PredictStateMapping]``: a dict (its keys iterated) failed mid-run, after
    the machine had moved (TOOL_CALL_END for a call never started)."""
    with pytest.raises(TypeError, match=r"ToolBehavior\.predict_state.*PredictStateMapping.*dict"):
        ToolBehavior(predict_state={"state_key": "recipe", "tool": "lookup", "tool_argument": "city"})


BAD_BEHAVIORS: list[tuple[str, Any]] = [
    ("predict_state", "recipe"),
    ("predict_state", ["recipe"]),
    ("predict_state", 3),
    ("args_streamer", "not callable"),
    ("state_from_args", 1),
    ("state_from_result", object()),
    ("custom_result_handler", ["x"]),
    ("skip_messages_snapshot", "yes"),
    ("continue_after_frontend_call", 1),
    ("stop_streaming_after_result", None),
    ("interrupt_on_call", "no"),
]


@pytest.mark.parametrize(("field", "value"), BAD_BEHAVIORS)
def test_a_wrong_type_in_a_tool_behavior_names_the_field(field: str, value: Any) -> None:
    with pytest.raises(TypeError, match=rf"ToolBehavior\.{field}"):
        ToolBehavior(**{field: value})


BAD_CONFIGS: list[tuple[str, Any]] = [
    ("tool_behaviors", {"lookup": {"predict_state": None}}),
    ("tool_behaviors", [ToolBehavior()]),
    ("tool_behaviors", {1: ToolBehavior()}),
    ("state_context_builder", "x"),
    ("invocation_state_provider", 1),
    ("template_tools_provider", ["lookup"]),
    ("session_manager_provider", "s"),
    ("on_cancel", True),
    ("raw_events", "yes"),
    ("limits", {"turns": "3"}),
    ("limits", {"laps": 3}),
    ("limits", 3),
    ("multiagent_events", "nodes"),
    ("resume_payload", "raw"),
]


@pytest.mark.parametrize(("field", "value"), BAD_CONFIGS)
def test_a_wrong_type_in_the_config_names_the_field(field: str, value: Any) -> None:
    with pytest.raises((TypeError, ValueError), match=rf"StrandsAgentConfig\.{field}"):
        StrandsAgentConfig(**{field: value})


@pytest.mark.parametrize("value", ["ids", 3, None])
def test_an_id_factory_that_is_not_callable_is_refused(value: Any) -> None:
    with pytest.raises(TypeError, match="id_factory"):
        StrandsAgent(Agent(model=ScriptedModel([]), callback_handler=None), id_factory=value)


def test_valid_predict_state_forms_are_kept() -> None:
    one = PredictStateMapping(state_key="s", tool="lookup", tool_argument="city")
    assert ToolBehavior(predict_state=one).predict_state_payload() == [one.to_payload()]
    assert ToolBehavior(predict_state=[one, one]).predict_state_payload() == [one.to_payload()] * 2
    assert ToolBehavior(predict_state=(one,)).predict_state_payload() == [one.to_payload()]



def test_a_predict_state_mapping_with_a_wrong_field_is_refused() -> None:
    with pytest.raises(TypeError, match=r"PredictStateMapping\.tool_argument must be a str"):
        PredictStateMapping(state_key="s", tool="t", tool_argument=["city"])  # type: ignore[arg-type]


def test_predict_state_from_a_generator_serves_every_run() -> None:
    one = PredictStateMapping(state_key="s", tool="lookup", tool_argument="city")
    behavior = ToolBehavior(predict_state=(m for m in [one]))
    assert behavior.predict_state_payload() == behavior.predict_state_payload() == [one.to_payload()]


@pytest.mark.parametrize("agent", ["my_agent", 3, None])
def test_a_strands_agent_of_no_agent_is_refused(agent: Any) -> None:
    with pytest.raises(TypeError, match="StrandsAgent agent must be a strands Agent, Swarm or Graph"):
        StrandsAgent(agent)


def test_a_config_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(TypeError, match="StrandsAgent config must be a StrandsAgentConfig"):
        StrandsAgent(Agent(model=ScriptedModel([]), callback_handler=None), config={"raw_events": True})  # type: ignore[arg-type]
