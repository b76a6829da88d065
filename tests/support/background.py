"""A Strands background task a test can follow: a slow report tool on a scripted model that reads a delivered
result back, and what the client holds of its card (``runtime/building/background_watch.py``)."""

from __future__ import annotations

from typing import Any

from ag_ui.core import RunAgentInput


def activities(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in report["messages"] if m["role"] == "activity"]


def slow_report_agent(seconds: float, script: list[Any], **background: Any) -> Any:
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


def card(report: dict[str, Any]) -> dict[str, Any]:
    [task] = activities(report)
    return task["content"]


def reader(messages: list[Any]) -> Any:
    """The scripted model: a report asked for starts ``long_report``; a delivered task result (Strands' synthetic
    ``strands_manage_background_task`` call, answered) is read back to the user; else a short line."""
    from strands_agui.tooling.scripted import Text, ToolUse

    last = messages[-1]
    for block in last.get("content") or ():
        result = block.get("toolResult")
        if result is None:
            continue
        texts = [b["text"] for b in result.get("content") or () if "text" in b]
        meta = next((b["json"] for b in result.get("content") or () if "json" in b), None)
        if meta is None:
            return [Text("It is being written.")]  # the dispatch's answer
        if texts:
            return [Text(f"Your report came in: {texts[0]}")]
        return [Text(f"The report was {meta.get('status')}.")]
    words = " ".join(b.get("text", "") for b in last.get("content") or ())
    if "report" in words:
        return [ToolUse("long_report", {"topic": "sales"}, tool_use_id="tool-report")]
    return [Text("Nothing new.")]


def sent(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What ``HttpAgent`` sends of the messages it holds (``prepareRunAgentInput``, 1.0 and 0.0.59): no activity."""
    return [m for m in messages if m["role"] != "activity"]


def thread_input(thread: str, run_id: str, messages: list[dict[str, Any]]) -> RunAgentInput:
    return RunAgentInput.model_validate({"threadId": thread, "runId": run_id, "messages": messages, "state": {},
                                         "tools": [], "context": [], "forwardedProps": {}})
