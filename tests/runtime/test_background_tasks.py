"""Issue 29 item 2: a Strands background task (``Agent(background_tasks=...)``) is an activity the client follows.

The recorded ``background_task`` scenario (a real ``strands.Agent`` on a scripted model, a tool that always runs
in the background): the client holds one ``background_task`` activity message per task, whose status ends
``completed`` with the task's result (which Strands delivers into the conversation without streaming it), on
the official clients 1.0 and 0.0.59."""

from __future__ import annotations

from typing import Any

from strands_agui.server.transport.versions import legacy_event
from strands_agui.tooling.testing import dump_events
from tests.oracles import LEGACY, assert_valid_stream, check_official_client
from tests.support.replays import replayed


def activities(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in report["messages"] if m["role"] == "activity"]


def test_the_task_is_an_activity_holding_its_result_on_both_clients() -> None:
    events = replayed("background_task")
    for report in (assert_valid_stream(events), check_official_client([legacy_event(e) for e in events],
                                                                       client=LEGACY)):
        [task] = activities(report)
        assert task["activityType"] == "background_task"
        content = task["content"]
        assert {k: content[k] for k in ("toolCallId", "toolName", "status", "result")} == {
            "toolCallId": "tool-report", "toolName": "write_report", "status": "completed",
            "result": "Report on sales: all fine."}
        [dispatched] = [m for m in report["messages"] if m["role"] == "tool"]
        assert content["taskId"] in dispatched["content"]  # the call's own answer names the task
        answers = [m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content")]
        assert answers[-1] == "The report is ready."


def test_each_status_change_is_a_delta_of_the_same_activity() -> None:
    events = dump_events(replayed("background_task"))
    snapshots = [e for e in events if e["type"] == "ACTIVITY_SNAPSHOT"]
    deltas = [e for e in events if e["type"] == "ACTIVITY_DELTA"]
    assert len(snapshots) == 1 and deltas
    assert {d["messageId"] for d in deltas} == {snapshots[0]["messageId"]}
    assert deltas[-1]["patch"][0] == {"op": "replace", "path": "/status", "value": "completed"}


def test_no_task_no_activity() -> None:
    assert not [e for e in dump_events(replayed("backend_tool")) if e["type"].startswith("ACTIVITY")]


async def test_a_cancelled_run_cancels_its_open_tasks() -> None:
    import asyncio

    from strands import Agent, tool

    from strands_agui import StrandsAgent
    from strands_agui.tooling.scripted import Cancel, ScriptedModel, Text, ToolUse
    from tests.support.scenarios import run_input

    finished: list[str] = []

    @tool
    async def long_report(topic: str) -> str:
        """A report that takes long."""
        await asyncio.sleep(0.5)
        finished.append(topic)
        return "done"

    agent = Agent(model=ScriptedModel([[ToolUse("long_report", {"topic": "x"}, tool_use_id="tool-long")],
                                       [Text("Working on it"), Cancel()]]),
                  tools=[long_report], callback_handler=None, background_tasks={"always": ["long_report"]})
    events = dump_events([e async for e in StrandsAgent(agent).run(run_input("go"))])
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
    [task] = [e for e in events if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert task["content"]["toolName"] == "long_report"
    await asyncio.sleep(0.8)
    assert finished == [], "the task was cancelled with its run"


def _slow_report_agent(seconds: float, script: list[Any], **background: Any) -> Any:
    import asyncio

    from strands import Agent, tool

    from strands_agui.tooling.scripted import ScriptedModel

    @tool
    async def long_report(topic: str) -> str:
        """A report that takes long."""
        await asyncio.sleep(seconds)
        return f"Report on {topic}: all fine."

    return Agent(model=ScriptedModel(script), tools=[long_report], callback_handler=None,
                 background_tasks={"always": ["long_report"], **background})


def _card(report: dict[str, Any]) -> dict[str, Any]:
    [task] = activities(report)
    return task["content"]


async def test_a_cancelled_run_shows_its_task_cancelled_on_both_clients() -> None:
    """Issue 29: the task card ends ``cancelled`` (its last activity event before the terminal one says so)."""
    from strands_agui import StrandsAgent
    from strands_agui.tooling.scripted import Cancel, Text, ToolUse
    from tests.support.scenarios import run_input

    agent = _slow_report_agent(5, [[ToolUse("long_report", {"topic": "x"}, tool_use_id="tool-long")],
                                   [Text("Working on it"), Cancel()]])
    raw = [e async for e in StrandsAgent(agent).run(run_input("go"))]
    events = dump_events(raw)
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
    last = [e for e in events if e["type"].startswith("ACTIVITY")][-1]
    assert last["type"] == "ACTIVITY_DELTA" and {"op": "replace", "path": "/status", "value": "cancelled"} in last[
        "patch"]
    for report in (assert_valid_stream(events), check_official_client([legacy_event(e) for e in raw],
                                                                       client=LEGACY)):
        assert _card(report)["status"] == "cancelled"


async def test_a_cancel_by_id_shows_the_task_cancelled() -> None:
    """The run's cancel route (its cancel flag) halts the run while the task works: the card says ``cancelled``."""
    import asyncio
    import threading

    from strands_agui import StrandsAgent
    from strands_agui.tooling.scripted import Text, ToolUse
    from tests.support.scenarios import run_input

    agent = _slow_report_agent(5, [[ToolUse("long_report", {"topic": "x"}, tool_use_id="tool-long")],
                                   [Text("Working on it, a long answer " * 3, chunks=30)]])
    cancel = threading.Event()
    events = []
    async for event in StrandsAgent(agent).run(run_input("go"), cancel=cancel):
        events.append(event)
        if type(event).__name__ == "ActivitySnapshotEvent":
            cancel.set()
            await asyncio.sleep(0)
    wire = dump_events(events)
    assert wire[-1]["outcome"] == {"type": "cancelled"}
    for report in (assert_valid_stream(wire), check_official_client([legacy_event(e) for e in events],
                                                                    client=LEGACY)):
        assert _card(report)["status"] == "cancelled"
