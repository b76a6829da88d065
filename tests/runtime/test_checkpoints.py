"""Issue 29 item 4: a Strands checkpoint (``Agent(checkpointing=True)``) ends the run paused, with an interrupt
the client resumes from; the checkpoint is durable in the session store, so the resume works on another worker.

A real ``strands.Agent`` on a scripted model: the run pauses after the model asked for a tool (``after_model``),
the resume runs the tool and pauses again (``after_tools``), the next resume answers. Every stream goes through
both official clients (1.0 and 0.0.59), each resume built from what the client holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from strands import Agent, tool
from strands.types.content import Messages

from strands_agui import FileSessions, StrandsAgent
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse, Turn
from strands_agui.tooling.testing import dump_events
from tests.oracles import LEGACY, assert_valid_stream, check_official_client
from tests.support.generations import legacy_event


@tool
def get_weather(location: str) -> dict:
    """Current weather for a location."""
    return {"location": location, "temperature": 21}


def script(messages: Messages) -> Turn:
    if any("toolResult" in block for m in messages for block in m["content"]):
        return [Text("Sunny in Paris.")]
    return [Text("Let me look."), ToolUse("get_weather", {"location": "Paris"}, tool_use_id="tool-w")]


def checkpointing(_: Any = None) -> Agent:
    return Agent(model=ScriptedModel(script), tools=[get_weather], callback_handler=None, checkpointing=True)


def body(run: int, messages: list[dict[str, Any]], resume: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"threadId": "thread-ck", "runId": f"run-{run}", "messages": messages, "tools": [], "context": [],
            "forwardedProps": {}, "state": {}, **({"resume": resume} if resume else {})}


async def served(agent: StrandsAgent, data: dict[str, Any]) -> list[dict[str, Any]]:
    return dump_events([e async for e in agent.run(RunAgentInput.model_validate(data))])


def held(report: dict[str, Any]) -> list[tuple[str, Any, list[str]]]:
    return [(m["role"], m.get("content"), [c["id"] for c in m.get("toolCalls") or ()]) for m in report["messages"]]


@pytest.mark.parametrize("client", ["1.0", LEGACY])
async def test_a_checkpointed_run_pauses_and_resumes_on_another_worker(tmp_path: Path, client: str) -> None:
    # two workers: two adapters on one session store (a checkpoint is parked there, like a pause)
    workers = [StrandsAgent(checkpointing, sessions=FileSessions(tmp_path)) for _ in range(2)]
    messages: list[dict[str, Any]] = [{"id": "user-1", "role": "user", "content": "Weather in Paris?"}]
    resume = None
    seen = []
    for run in range(3):
        data = body(run, messages, resume)
        events = await served(workers[run % 2], data)
        if client == LEGACY:
            report = check_official_client([legacy_event(_model(e)) for e in events], input=data, client=LEGACY)
        else:
            report = assert_valid_stream(events, input=data)
        messages = report["messages"]
        seen.append((report["outcome"], events[-1].get("metadata"), held(report)))
        if report["outcome"] != "interrupt":
            break
        [interrupt] = report["interrupts"]
        resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {}}]
        checkpoint = interrupt["metadata"]["checkpoint"]
        assert interrupt["id"] == f"checkpoint-run-{run}" and interrupt["reason"] == "strands_checkpoint"
        assert checkpoint["position"] == ("after_model", "after_tools")[run]
        assert interrupt["message"].startswith(f"Paused at a checkpoint ({checkpoint['position']}, cycle 0)")
        assert interrupt["expiresAt"]  # parked as long as a pause
    assert [s[0] for s in seen] == ["interrupt", "interrupt", "success"]
    assert [s[1]["stopReason"] for s in seen] == ["checkpoint", "checkpoint", "end_turn"]
    assert seen[0][2] == [("user", "Weather in Paris?", []), ("assistant", "Let me look.", ["tool-w"])]
    assert seen[1][2] == [*seen[0][2], ("tool", '{"location":"Paris","temperature":21}', [])]  # the tool ran
    assert seen[2][2] == [*seen[1][2], ("assistant", "Sunny in Paris.", [])]
    assert not any((tmp_path).glob("*/session.json")), "the finished run left no pause"


def _model(event: dict[str, Any]) -> Any:
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    return TypeAdapter(Event).validate_python(event)


async def test_a_cancelled_checkpoint_is_dropped_and_a_wrong_id_refused(tmp_path: Path) -> None:
    agent = StrandsAgent(checkpointing, sessions=FileSessions(tmp_path))
    first = [{"id": "user-1", "role": "user", "content": "Weather in Paris?"}]
    events = await served(agent, body(0, first))
    report = check_official_client(events, input=body(0, first))
    wrong = await served(agent, body(1, report["messages"], [{"interruptId": "checkpoint-other", "status": "resolved",
                                                               "payload": {}}]))
    assert (wrong[-1]["type"], wrong[-1]["code"]) == ("RUN_ERROR", "INTERRUPT_NOT_FOUND")
    assert "checkpoint-run-0" in wrong[-1]["message"]
    dropped = await served(agent, body(2, report["messages"], [{"interruptId": "checkpoint-run-0",
                                                                 "status": "cancelled"}]))
    assert dropped[-1]["type"] == "RUN_FINISHED" and dropped[-1]["outcome"] == {"type": "success"}
    again = await served(agent, body(3, report["messages"], [{"interruptId": "checkpoint-run-0",
                                                              "status": "resolved", "payload": {}}]))
    assert again[-1]["code"] == "INTERRUPT_NOT_FOUND"  # nothing is parked any more
