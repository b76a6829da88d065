"""The resume contract tools written for upstream ``ag_ui_strands`` rely on: ``tool_context.interrupt()`` returns
``{"response": payload}`` for a resolved entry and ``{"cancelled": True}`` for a cancelled one (upstream's
``_wrap_resume_response``, ``integrations/aws-strands/python/src/ag_ui_strands/agent.py`` in ag-ui-protocol/ag-ui;
its Dojo agents read ``answer["response"]``). Before, we handed the tool the bare payload, so such a tool, resumed
with the time the user picked, answered that no time was picked. ``StrandsAgentConfig(resume_payload="bare")``
keeps the bare payload; approvals read ``{approved, ...}`` either way (tests/runtime/test_hitl.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent, ToolContext, tool

from strands_agui import StrandsAgent, StrandsAgentConfig
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_stream

PICKED = "Sat, Sep 12, 10:00 AM"
SEEN: list[Any] = []


@tool(context=True)
def schedule_meeting(topic: str, tool_context: ToolContext) -> str:
    """Schedule a meeting at a time the user picks (written as for upstream: the answer is wrapped)."""
    answer = tool_context.interrupt("schedule_meeting", reason={"message": f"Pick a time for the {topic} meeting"})
    SEEN.append(answer)
    if isinstance(answer, dict) and answer.get("cancelled"):
        return "User cancelled. Meeting NOT scheduled"
    if isinstance(answer, dict) and answer.get("response"):
        return f"Meeting scheduled for {answer['response']}"
    return "User did not pick a time. Meeting NOT scheduled"


def adapter(sessions: Path, **config: Any) -> StrandsAgent:
    model = ScriptedModel([[ToolUse("schedule_meeting", {"topic": "roadmap"}, tool_use_id="call-1")],
                           [Text("Done.")]])
    return StrandsAgent(Agent(model=model, tools=[schedule_meeting], callback_handler=None),
                        config=StrandsAgentConfig(**config), sessions=FileSessions(sessions))


async def events_of(agent: StrandsAgent, body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = [e.model_dump(mode="json", by_alias=True, exclude_none=True)
              async for e in agent.run(RunAgentInput.model_validate(body))]
    return events, assert_valid_stream(events, input=body)


async def resumed(tmp_path: Path, status: str, payload: Any = PICKED, **config: Any) -> tuple[str, Any]:
    """Pause on the tool's interrupt, answer it: the tool result the official client holds, what the tool got."""
    SEEN.clear()
    agent = adapter(tmp_path, **config)
    ask = {"threadId": "t1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "Book it"}]}
    paused, held = await events_of(agent, ask)
    (interrupt,) = paused[-1]["outcome"]["interrupts"]
    entry: dict[str, Any] = {"interruptId": interrupt["id"], "status": status}
    if status == "resolved":
        entry["payload"] = payload
    resume = {"threadId": "t1", "runId": "r2", "messages": held["messages"], "resume": [entry]}
    events, client = await events_of(agent, resume)
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    (result,) = [m["content"] for m in client["messages"] if m["role"] == "tool"]
    return result, SEEN[-1]


async def test_a_tool_written_for_upstream_books_the_picked_time(tmp_path: Path) -> None:
    result, seen = await resumed(tmp_path, "resolved")
    assert seen == {"response": PICKED}
    assert PICKED in result and "NOT" not in result


async def test_a_cancelled_interrupt_reaches_the_tool_as_upstreams_cancelled(tmp_path: Path) -> None:
    result, seen = await resumed(tmp_path, "cancelled")
    assert seen == {"cancelled": True} and "cancelled" in result


@pytest.mark.parametrize("payload", [PICKED, {"slot": 3}, 0, False])
async def test_resume_payload_bare_hands_over_the_payload_itself(tmp_path: Path, payload: Any) -> None:
    _, seen = await resumed(tmp_path, "resolved", payload, resume_payload="bare")
    assert seen == payload


def test_an_unknown_resume_payload_mode_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="resume_payload"):
        StrandsAgentConfig(resume_payload="raw")  # type: ignore[arg-type]
