"""``StrandsAgentConfig.template_tools_provider``: one run's tools narrowed per request
(``runtime/building/tool_selection.py``).

A real ``strands.Agent`` on a scripted model that records the tools it is offered; a call to a withheld tool
gets the defined error result; both oracles accept every stream and the official client holds the result."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent

from strands_agui import StrandsAgent, StrandsAgentConfig
from strands_agui.runtime.building.tool_selection import withheld_result
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_stream
from tests.support.scenarios import get_time, get_weather


class OfferedModel(ScriptedModel):
    """The scripted model, keeping the tool names each call was offered."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.offered: list[list[str]] = []

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None,
                     **kwargs: Any) -> Any:
        self.offered.append(sorted(spec["name"] for spec in tool_specs or ()))
        async for chunk in super().stream(messages, tool_specs, system_prompt, **kwargs):
            yield chunk


def template(*script: Any) -> tuple[Agent, OfferedModel]:
    model = OfferedModel(list(script))
    return Agent(model=model, tools=[get_weather, get_time], callback_handler=None), model


def run_input(text: str = "weather and time in Paris?", **extra: Any) -> RunAgentInput:
    return RunAgentInput.model_validate({"threadId": "t-sel", "runId": "r-1", "state": {}, "tools": [],
                                         "context": [], "forwardedProps": extra,
                                         "messages": [{"id": "u1", "role": "user", "content": text}]})


async def events_of(adapter: StrandsAgent, input_data: RunAgentInput, request: Any = None) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True)
            async for e in adapter.run(input_data, request=request)]


async def test_a_withheld_tool_is_not_offered_and_a_call_to_it_gets_the_defined_error() -> None:
    agent, model = template([ToolUse("get_weather", {"location": "Paris"}, "c-weather"),
                             ToolUse("get_time", {"city": "Paris"}, "c-time")], [Text("Sunny; no clock.")])
    seen: list[Any] = []

    def provider(request: Any, input_data: RunAgentInput) -> list[str]:
        seen.append((request, input_data.run_id))
        return ["get_weather"]

    adapter = StrandsAgent(agent, name="sel", config=StrandsAgentConfig(template_tools_provider=provider))
    events = await events_of(adapter, run_input(), request="the-request")
    assert seen == [("the-request", "r-1")]
    assert model.offered == [["get_weather"], ["get_weather"]]  # never offered get_time
    results = {e["toolCallId"]: e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"}
    assert json.loads(results["c-weather"])["conditions"] == "sunny"
    assert json.loads(results["c-time"]) == withheld_result("get_time")  # a text result: a JSON string
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "success"}
    report = assert_valid_stream(events, input=run_input().model_dump(mode="json", by_alias=True))
    time_message = next(m for m in report["messages"] if m.get("toolCallId") == "c-time")
    assert json.loads(time_message["content"]) == withheld_result("get_time") and time_message["error"]
    assert sorted(agent.tool_names) == ["get_time", "get_weather"]  # the template keeps its tools


async def test_none_leaves_every_tool_and_upstreams_one_parameter_async_provider_works() -> None:
    async def upstream_style(input_data: RunAgentInput) -> list[Any] | None:
        return None if input_data.forwarded_props.get("role") == "admin" else [get_time]

    for role, offered in (("admin", ["get_time", "get_weather"]), ("guest", ["get_time"])):
        agent, model = template([Text("ok")])
        adapter = StrandsAgent(agent, name="sel", config=StrandsAgentConfig(template_tools_provider=upstream_style))
        events = await events_of(adapter, run_input(role=role))
        assert events[-1]["type"] == "RUN_FINISHED" and model.offered == [offered], role


@pytest.mark.parametrize("answer", ["get_weather", {"get_weather": True}, 42, RuntimeError("no directory")])
async def test_an_unreadable_answer_ends_the_run_before_strands(answer: Any) -> None:
    def provider(request: Any, input_data: RunAgentInput) -> Any:
        if isinstance(answer, Exception):
            raise answer
        return answer

    agent, model = template([Text("never")])
    adapter = StrandsAgent(agent, name="sel", config=StrandsAgentConfig(template_tools_provider=provider))
    events = await events_of(adapter, run_input())
    assert [e["type"] for e in events][-1] == "RUN_ERROR" and events[-1]["code"] == "TOOL_SELECTION_ERROR"
    assert model.offered == []  # Strands was not called
    assert_valid_stream(events)
