"""generate_a2ui (strands_agui.tooling.a2ui) and its example route, through real Strands agents with scripted
models, checked by the official client (what the user ends up holding) and ag-ui-validate."""

from __future__ import annotations

import json
import uuid
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui_a2ui_toolkit import A2UI_SCHEMA_CONTEXT_DESCRIPTION, BASIC_CATALOG_ID
from strands import Agent
from strands.types.content import Messages

from strands_agui import StrandsAgent
from strands_agui.examples import a2ui_generative_ui as example
from strands_agui.examples._common import call, tool_outcomes
from strands_agui.tooling.a2ui import a2ui_tool
from strands_agui.tooling.scripted import ScriptedModel, Text, Turn
from tests.oracles import assert_valid_stream

TRIP = "show me a checklist for a trip: passport, tickets and charger"


def run_input(messages: list[dict[str, Any]], context: list[dict[str, str]] | None = None) -> RunAgentInput:
    return RunAgentInput.model_validate({
        "threadId": "thread-a2ui", "runId": f"run-{uuid.uuid4().hex[:8]}", "messages": messages, "state": {},
        "tools": [], "context": context or [], "forwardedProps": {}})


async def collect(agent: StrandsAgent, input_data: RunAgentInput) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) async for e in agent.run(input_data)]


def tool_message(report: dict[str, Any], call_id: str) -> dict[str, Any]:
    return next(m for m in report["messages"] if m.get("role") == "tool" and m["toolCallId"] == call_id)


def calls_named(report: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [c for m in report["messages"] for c in m.get("toolCalls") or [] if c["function"]["name"] == name]


async def test_the_example_streams_the_render_call_and_returns_the_operations() -> None:
    events = await collect(example.build_agent(env={}), run_input([{"id": "u1", "role": "user", "content": TRIP}]))
    report = assert_valid_stream(events, fail_on_run_error=True)

    outer = calls_named(report, "generate_a2ui")[0]
    ops = json.loads(tool_message(report, outer["id"])["content"])["a2ui_operations"]
    assert [next(k for k in op if k != "version") for op in ops] == ["createSurface", "updateComponents",
                                                                    "updateDataModel"]
    assert ops[0]["createSurface"] == {"surfaceId": "checklist", "catalogId": BASIC_CATALOG_ID}
    assert ops[2]["updateDataModel"]["value"] == {"items": [{"name": "passport"}, {"name": "tickets"},
                                                            {"name": "charger"}]}
    inner = calls_named(report, "render_a2ui")[0]  # the designer's call, held by the client as a subagent's
    assert json.loads(inner["function"]["arguments"])["components"] == ops[1]["updateComponents"]["components"]
    started = [e for e in events if e["type"] == "SUBAGENT_STARTED"]
    assert [(e["name"], e["parentToolCallId"]) for e in started] == [("generate_a2ui", outer["id"])]
    render_args = [e for e in events if e["type"] == "TOOL_CALL_ARGS" and e["toolCallId"] == inner["id"]]
    assert len(render_args) > 1 and {e["subagentRunId"] for e in render_args} == {started[0]["subagentRunId"]}
    assert report["messages"][-1]["content"] == "Here it is: Checklist for a trip, drawn above."


def planner(tool_input: dict[str, Any]) -> Any:
    def turn(messages: Messages) -> Turn:
        return [Text("Done.")] if tool_outcomes(messages) else [call("generate_a2ui", tool_input)]
    return ScriptedModel(turn)


def designer(seen: list[str], model: type[ScriptedModel] = ScriptedModel) -> Any:
    """A designer that draws one text component naming what it was asked (and records what it was asked)."""
    def turn(messages: Messages) -> Turn:
        if tool_outcomes(messages):
            return [Text("ok")]
        asked = messages[0]["content"][0]["text"]
        seen.append(asked)
        return [call("render_a2ui", {"surfaceId": "note", "components": [
            {"id": "root", "component": "Card", "child": "t"}, {"id": "t", "component": "Text", "text": asked}]})]
    return model(turn)


def agent_with(tool_input: dict[str, Any], seen: list[str]) -> StrandsAgent:
    strands_agent = Agent(model=planner(tool_input), tools=[a2ui_tool(designer(seen))], callback_handler=None)
    return StrandsAgent(strands_agent, name="a2ui")


async def test_an_update_keeps_the_surface_and_names_the_changes() -> None:
    seen: list[str] = []
    first = await collect(agent_with({"intent": "create"}, seen), run_input([{"id": "u1", "role": "user",
                                                                            "content": "a note"}]))
    held = assert_valid_stream(first)["messages"]
    update = {"intent": "update", "target_surface_id": "note", "changes": "say hello"}
    second = await collect(agent_with(update, seen), run_input([*held, {"id": "u2", "role": "user",
                                                                       "content": "change it"}]))
    report = assert_valid_stream(second)
    updated = next(c for c in calls_named(report, "generate_a2ui") if "update" in c["function"]["arguments"])
    ops = json.loads(tool_message(report, updated["id"])["content"])
    assert [next(k for k in op if k != "version") for op in ops["a2ui_operations"]] == ["updateComponents"]
    assert ops["a2ui_operations"][0]["updateComponents"]["surfaceId"] == "note"
    assert seen == ["a note", "change it\n\nChanges: say hello"]


async def test_an_update_of_a_surface_never_rendered_is_an_error_result_not_a_crash() -> None:
    seen: list[str] = []
    agent = agent_with({"intent": "update", "target_surface_id": "ghost"}, seen)
    report = assert_valid_stream(await collect(agent, run_input([{"id": "u1", "role": "user", "content": "x"}])),
                                 fail_on_run_error=True)
    result = json.loads(tool_message(report, calls_named(report, "generate_a2ui")[0]["id"])["content"])
    assert "ghost" in result["error"] and seen == []  # the designer was never asked


async def test_the_catalog_the_middleware_injects_reaches_the_designer_prompt() -> None:
    prompts: list[str] = []

    class Recording(ScriptedModel):
        async def stream(self, messages, tool_specs=None, system_prompt=None, **kwargs):  # type: ignore[no-untyped-def]
            prompts.append(system_prompt or "")
            async for chunk in super().stream(messages, tool_specs, system_prompt, **kwargs):
                yield chunk

    model = designer([], Recording)
    agent = StrandsAgent(Agent(model=planner({}), tools=[a2ui_tool(model)], callback_handler=None), name="a2ui")
    catalog = {"description": A2UI_SCHEMA_CONTEXT_DESCRIPTION, "value": '{"components": {"Sparkline": {}}}'}
    await collect(agent, run_input([{"id": "u1", "role": "user", "content": "x"}], context=[catalog]))
    assert prompts and "## Available Components" in prompts[0] and "Sparkline" in prompts[0]
