"""Issue 29 item 2: a Strands background task (``Agent(background_tasks=...)``) is an activity the client follows.

The recorded ``background_task`` scenario (a real ``strands.Agent`` on a scripted model, a tool that always runs
in the background): the client holds one ``background_task`` activity message per task, whose status ends
``completed`` with the task's result (which Strands delivers into the conversation without streaming it), on
the official clients 1.0 and 0.0.59."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

from strands_agui import StrandsAgent
from strands_agui.tooling.testing import dump_events
from tests.oracles import CURRENT, LEGACY, assert_valid_stream, check_official_client
from tests.support.background import activities, card, reader, sent, slow_report_agent, thread_input
from tests.support.generations import legacy_event
from tests.support.replays import replayed
from tests.support.scenarios import run_input


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


async def test_a_cancelled_run_shows_its_task_cancelled_on_both_clients() -> None:
    """Issue 29: the task card ends ``cancelled`` (its last activity event before the terminal one says so)."""
    from strands_agui import StrandsAgent
    from strands_agui.tooling.scripted import Cancel, Text, ToolUse

    agent = slow_report_agent(5, [[ToolUse("long_report", {"topic": "x"}, tool_use_id="tool-long")],
                                  [Text("Working on it"), Cancel()]])
    raw = [e async for e in StrandsAgent(agent).run(run_input("go"))]
    events = dump_events(raw)
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
    last = [e for e in events if e["type"].startswith("ACTIVITY")][-1]
    assert last["type"] == "ACTIVITY_DELTA" and {"op": "replace", "path": "/status", "value": "cancelled"} in last[
        "patch"]
    for report in (assert_valid_stream(events), check_official_client([legacy_event(e) for e in raw],
                                                                       client=LEGACY)):
        assert card(report)["status"] == "cancelled"


async def test_a_cancel_by_id_shows_the_task_cancelled() -> None:
    """The run's cancel route (its cancel flag) halts the run while the task works: the card says ``cancelled``."""
    import asyncio
    import threading

    from strands_agui import StrandsAgent
    from strands_agui.tooling.scripted import Text, ToolUse

    agent = slow_report_agent(5, [[ToolUse("long_report", {"topic": "x"}, tool_use_id="tool-long")],
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
        assert card(report)["status"] == "cancelled"


@pytest.mark.parametrize(("client", "cards_sent"), [(CURRENT, False), (LEGACY, False), (CURRENT, True)])
async def test_a_task_outliving_its_run_reaches_the_next_run_of_the_thread(client: str, cards_sent: bool) -> None:
    """Issue 29: ``wait_for_completion=False``: run 1 ends while the task works; the task finishes; run 2 of the
    same thread delivers it: the client holds the same card (one card), ``completed`` with the report, and the
    model read the result as Strands delivers it (the answer quotes it). The official clients never send the card
    back; a client that does (``cards_sent``) gets the same."""
    agent = StrandsAgent(slow_report_agent(0.4, reader, wait_for_completion=False))  # type: ignore[arg-type]
    thread = f"thread-bg-{client}-{cards_sent}"

    def wire(events: list[Any]) -> list[Any]:
        return events if client == CURRENT else [legacy_event(e) for e in events]

    first = [{"id": "u-1", "role": "user", "content": "Write a report please"}]
    run1 = [e async for e in agent.run(thread_input(thread, "run-1", first))]
    assert dump_events(run1)[-1]["outcome"] == {"type": "success"}
    assert_valid_stream(dump_events(run1))
    held = check_official_client(wire(run1), client=client)
    [card1] = activities(held)
    assert card1["content"]["status"] in ("queued", "working"), "run 1 ended while the task works"
    await asyncio.sleep(0.8)  # the task finishes after its run ended

    holds = [*held["messages"], {"id": "u-2", "role": "user", "content": "Any news?"}]
    history = holds if cards_sent else sent(holds)
    run2 = [e async for e in agent.run(thread_input(thread, "run-2", history))]
    events = dump_events(run2)
    assert {e["messageId"] for e in events if e["type"].startswith("ACTIVITY")} == {card1["id"]}, "the same card"
    assert_valid_stream(events, input={"messages": holds})
    report = check_official_client(wire(run2), client=client, input={"messages": holds})
    [card] = activities(report)
    assert card["id"] == card1["id"] and card["content"]["toolCallId"] == card1["content"]["toolCallId"]
    assert card["content"]["status"] == "completed" and card["content"]["result"] == "Report on sales: all fine."
    answers = [m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content")]
    assert answers[-1] == "Your report came in: Report on sales: all fine."

    third = [*sent(report["messages"]), {"id": "u-3", "role": "user", "content": "And now?"}]
    run3 = dump_events([e async for e in agent.run(thread_input(thread, "run-3", third))])
    assert not [e for e in run3 if e["type"].startswith("ACTIVITY")], "delivered once"


async def test_held_tasks_are_the_threads_principals_and_expire(monkeypatch: pytest.MonkeyPatch) -> None:
    """A task that outlived its run is only another run of the same thread *and principal*'s; nobody collecting
    it within ``HOLD_SECONDS`` cancels it (the next run with background tasks in the process sweeps)."""
    from strands import Agent, tool

    from strands_agui.runtime.building import background_watch
    from strands_agui.runtime.storage.sessions import session_id
    from strands_agui.tooling.scripted import ScriptedModel

    log: list[str] = []

    @tool
    async def long_report(topic: str) -> str:
        """A report that takes long."""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            log.append("cancelled")
            raise
        return "done"

    agent = StrandsAgent(Agent(model=ScriptedModel(reader), tools=[long_report], callback_handler=None,
                               background_tasks={"always": ["long_report"], "wait_for_completion": False}))
    first = [{"id": "u-1", "role": "user", "content": "Write a report please"}]
    [e async for e in agent.run(thread_input("thread-held", "run-h1", first), principal="alice")]
    assert background_watch.DETACHED.held(session_id("thread-held", "alice"))
    other = [{"id": "u-9", "role": "user", "content": "Any news?"}]
    bob = dump_events([e async for e in agent.run(thread_input("thread-held", "run-h2", other), principal="bob")])
    assert not [e for e in bob if e["type"].startswith("ACTIVITY")], "alice's task is not bob's"

    monkeypatch.setattr(background_watch, "HOLD_SECONDS", 0.0)
    [e async for e in agent.run(thread_input("thread-other", "run-h3", other))]
    await asyncio.sleep(0.2)
    assert log == ["cancelled"]
    assert not background_watch.DETACHED.held(session_id("thread-held", "alice"))


@pytest.mark.parametrize("done_before_resume", [True, False])
async def test_a_task_working_across_a_pause_is_delivered_completed_on_resume(tmp_path: Any,
                                                                              done_before_resume: bool) -> None:
    """A run that pauses (a ``Confirm``) while its report works: the resume's agent is restored from the session,
    where Strands marks an unsettled task ``failed`` ("cannot resume after restoring persisted state"); the task
    is in fact still the paused run's, held, and the resume delivers it ``completed``: once, on the same card."""
    from strands import Agent, tool
    from strands.interventions import Confirm, InterventionHandler, Proceed

    from strands_agui import FileSessions
    from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse

    class ConfirmBooking(InterventionHandler):
        name = "confirm-booking"

        def before_tool_call(self, event: Any, **kwargs: Any) -> Any:
            return Confirm(prompt="Book it?") if event.tool_use["name"] == "book" else Proceed()

    @tool
    async def long_report(topic: str) -> str:
        """A report that takes a moment."""
        await asyncio.sleep(0.4 if done_before_resume else 1.0)
        return f"Report on {topic}: all fine."

    @tool
    def book(city: str) -> str:
        """Book a flight."""
        return f"booked {city}"

    seen: list[str] = []

    def script(messages: list[Any]) -> Any:
        last = messages[-1]
        results = [b["toolResult"] for b in last.get("content") or () if "toolResult" in b]
        delivered = [r for r in results if any("json" in b for b in r.get("content") or ())]
        if delivered:
            meta = next(b["json"] for b in delivered[0]["content"] if "json" in b)
            texts = [b["text"] for b in delivered[0]["content"] if "text" in b]
            seen.append(str(meta.get("status")))
            return [Text(f"The report {meta.get('status')}: {' '.join(texts)}")]
        if results:
            return [Text("Booked; the report is on its way.")]
        return [ToolUse("long_report", {"topic": "sales"}, tool_use_id="tool-r"),
                ToolUse("book", {"city": "Oslo"}, tool_use_id="tool-b")]

    agent = StrandsAgent(Agent(model=ScriptedModel(script), tools=[long_report, book], callback_handler=None,
                               interventions=[ConfirmBooking()], background_tasks={"always": ["long_report"]}),
                         sessions=FileSessions(tmp_path))
    first = [{"id": "u-1", "role": "user", "content": "Report and book"}]
    run1 = [e async for e in agent.run(thread_input("thread-pause", "run-p1", first))]
    held = check_official_client(run1)
    assert held["outcome"] == "interrupt"
    [card1] = activities(held)
    if done_before_resume:
        await asyncio.sleep(0.8)  # the report is written while the run waits for its answer
    resume = [{"interruptId": held["interrupts"][0]["id"], "status": "resolved", "payload": {"approved": True}}]
    data = thread_input("thread-pause", "run-p2", sent(held["messages"])).model_copy(
        update={"resume": RunAgentInput.model_validate({
            "threadId": "t", "runId": "r", "messages": [], "state": {}, "tools": [], "context": [],
            "forwardedProps": {}, "resume": resume}).resume})
    run2 = [e async for e in agent.run(data)]
    report = check_official_client(run2, input={"messages": held["messages"]})
    [card] = activities(report)
    assert card["id"] == card1["id"]
    assert card["content"]["status"] == "completed" and card["content"]["result"] == "Report on sales: all fine."
    assert seen == ["completed"], "delivered once, completed"
