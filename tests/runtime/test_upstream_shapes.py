"""What a page written for upstream ``ag_ui_strands`` reads, as upstream shapes it (issue 26, item 3; the Dojo suite,
tests/dojo, measures the same on the Dojo's own agents):

* a tool result is encoded as upstream encodes it (``_extract_tool_result_data`` then
  ``_serialize_tool_result_data`` in its ``agent.py``): compact JSON, a plain text as a JSON string, so a renderer
  that ``JSON.parse``s it works on ours; the live TOOL_CALL_RESULT and the MESSAGES_SNAPSHOT's tool message agree.
  Before, ours sent a text as it was and a dict with ``json.dumps``' default spacing;
* a tool's yielded ``{"state": {...}}`` is state (STATE_SNAPSHOT), not an activity message the client holds;
* an interrupt's ``metadata`` is upstream's ``{reason}``.

Upstream 1.0.2 (a test dependency, ``pyproject.toml``) is the reference: its two functions are called here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from ag_ui_strands.agent import _extract_tool_result_data, _serialize_tool_result_data
from strands import Agent, ToolContext, tool

from strands_agui import StrandsAgent
from strands_agui.core.results import wire_result
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_stream

CONTENTS: list[list[dict[str, Any]]] = [
    [{"text": "Recipe updated successfully"}],
    [{"text": json.dumps({"temperature": 72, "conditions": "sunny", "city": "Zürich"})}],
    [{"text": "{'a': 1, 'b': [2, 3]}"}],  # a Python repr: upstream reads it once single quotes are double
    [{"text": "it's done"}],
    [{"text": ""}],
    [{"text": "42"}],
    [{"text": "true"}],
    [{"text": "[1, 2]"}],
    [{"text": "line one\nline two \"quoted\""}],
    [{"json": {"rows": [1, 2], "é": "ü"}}],
    [],
]


def upstream(content: list[dict[str, Any]]) -> str:
    return _serialize_tool_result_data(_extract_tool_result_data(content))


@pytest.mark.parametrize("content", CONTENTS, ids=lambda c: json.dumps(c)[:40])
def test_a_result_is_encoded_as_upstream_encodes_it(content: list[dict[str, Any]]) -> None:
    assert wire_result(content) == upstream(content)


def test_where_the_encodings_differ_ours_stays_json_and_keeps_every_text_block() -> None:
    """Upstream dumps ``NaN`` (no JSON) for the text "NaN", and keeps only the last of several text blocks."""
    assert json.loads(wire_result([{"text": "NaN"}])) == "NaN"
    assert upstream([{"text": "NaN"}]) == "NaN"
    assert json.loads(wire_result([{"text": "a"}, {"text": "b"}])) == "a\nb"
    assert upstream([{"text": "a"}, {"text": "b"}]) == '"b"'


@tool
def update_recipe(title: str) -> str:
    """Update the recipe."""
    return "Recipe updated successfully"


@tool
def get_weather(location: str) -> dict[str, Any]:
    """The weather."""
    return {"location": location, "temperature": 72, "conditions": "sunny"}


async def _events(agent: StrandsAgent, body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = [e.model_dump(mode="json", by_alias=True, exclude_none=True)
              async for e in agent.run(RunAgentInput.model_validate(body))]
    return events, assert_valid_stream(events, input=body)


def _body(state: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"threadId": "t1", "runId": "r1", "state": state or {},
            "messages": [{"id": "u1", "role": "user", "content": "go"}]}


async def test_the_live_result_and_the_snapshot_carry_upstreams_json() -> None:
    model = ScriptedModel([[ToolUse("update_recipe", {"title": "Pasta"}, tool_use_id="c1"),
                            ToolUse("get_weather", {"location": "Paris"}, tool_use_id="c2")], [Text("Done.")]])
    agent = StrandsAgent(Agent(model=model, tools=[update_recipe, get_weather], callback_handler=None))
    events, client = await _events(agent, _body())
    live = {e["toolCallId"]: e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"}
    snapshot = next(e for e in reversed(events) if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    held = {m["toolCallId"]: m["content"] for m in client["messages"] if m["role"] == "tool"}
    assert live == {"c1": '"Recipe updated successfully"',
                    "c2": '{"location":"Paris","temperature":72,"conditions":"sunny"}'}
    assert {m["toolCallId"]: m["content"] for m in snapshot if m["role"] == "tool"} == live == held
    assert json.loads(held["c1"]) == "Recipe updated successfully"


@tool
async def plan_task_steps(task: str) -> AsyncIterator[Any]:
    """Walk the plan, yielding state (as the Dojo's agentic generative UI tool does)."""
    steps = [{"description": "Building a rocket", "status": "pending"}]
    yield {"state": {"steps": [dict(s) for s in steps]}}
    steps[0]["status"] = "completed"
    yield {"state": {"steps": [dict(s) for s in steps]}}
    yield {"task": task, "steps": steps}


async def test_a_tools_yielded_state_is_a_state_snapshot_and_no_activity() -> None:
    model = ScriptedModel([[ToolUse("plan_task_steps", {"task": "Go to Mars"}, tool_use_id="c1")],
                           [Text("We made it.")]])
    agent = StrandsAgent(Agent(model=model, tools=[plan_task_steps], callback_handler=None))
    events, client = await _events(agent, _body({"theme": "dark"}))
    assert not [e for e in events if e["type"].startswith("ACTIVITY_")]
    snapshots = [e["snapshot"] for e in events if e["type"] == "STATE_SNAPSHOT"][1:]  # after the opening one
    # each yield merged into the whole state (upstream sends the yielded value alone, dropping "theme")
    assert [s["steps"][0]["status"] for s in snapshots] == ["pending", "completed"]
    assert all(s["theme"] == "dark" for s in snapshots)
    assert [m["role"] for m in client["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert client["state"] == {"theme": "dark", "steps": [{"description": "Building a rocket", "status": "completed"}]}
    (result,) = [e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert json.loads(result)["task"] == "Go to Mars"  # the last yield is the result, not progress


@tool(context=True)
def schedule_meeting(topic: str, tool_context: ToolContext) -> str:
    """Schedule a meeting at a time the user picks."""
    answer = tool_context.interrupt("schedule_meeting", reason={"topic": topic})
    return f"Meeting scheduled for {answer['response']}"


async def test_an_interrupts_metadata_is_upstreams(tmp_path: Path) -> None:
    model = ScriptedModel([[ToolUse("schedule_meeting", {"topic": "pricing"}, tool_use_id="c1")], [Text("Done.")]])
    agent = StrandsAgent(Agent(model=model, tools=[schedule_meeting], callback_handler=None),
                         sessions=FileSessions(tmp_path))
    events, _ = await _events(agent, _body())
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    assert interrupt["reason"] == "schedule_meeting" and interrupt["metadata"] == {"reason": {"topic": "pricing"}}
    assert interrupt["toolCallId"] == "c1"  # ours also ties it to the call (an AG-UI field upstream leaves unset)
