"""Strands background tasks (``Agent(background_tasks=...)``) as something the client can follow.

Strands runs a background tool as a task (``queued -> working -> input_required -> completed | failed |
cancelled``), answers the model's call at once ("Background task dispatched ... Task ID ..."), keeps the tasks
in the agent's ``state`` (``strands.background_tasks``) and, when they settle, appends their results to the
conversation as a continuation (a synthetic ``manage_background_task`` call and its result) that the stream
never yields. So the run's stream is given events of our own, at turn boundaries (after each ``message``, and
before the ``result``), whenever a task appeared, changed status or was delivered::

    {"strands_agui_background_tasks": [{"taskId", "toolCallId", "toolName", "status", "result"?, "error"?}]}

They are recorded with the run (a replay shows the same); the translator shows each task as an activity
message (``core/handlers/background.py``). Statuses a task passes through while Strands waits inside its own
hooks (``wait_for_completion``) without yielding are not seen: a task shows ``queued``, then how it ended.
A run that ends cancelled cancels the tasks it left open (:meth:`BackgroundWatch.cancel_open`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

from strands import Agent

logger = logging.getLogger(__name__)

KEY = "strands_agui_background_tasks"
STATE_KEY = "strands.background_tasks"  # strands/background_tasks/_background_tasks.py


class BackgroundWatch:
    """One run's view of its agent's background tasks."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.seen: dict[str, dict[str, Any]] = {}
        self.cancelled = False  # Strands' result said the run was cancelled

    async def annotate(self, stream: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
        """``stream`` with a task event at each turn boundary where the tasks changed; the source is always
        closed with ``aclose()``."""
        iterator = aiter(stream)
        try:
            async for event in iterator:
                single = next(iter(event)) if isinstance(event, Mapping) and len(event) == 1 else None
                if single == "result":
                    result = event["result"]
                    self.cancelled |= getattr(result, "stop_reason", None) == "cancelled"
                    changed = self.changes()
                    if changed:
                        yield {KEY: changed}
                yield event
                if single == "message":
                    changed = self.changes()
                    if changed:
                        yield {KEY: changed}
        finally:
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()
            await self.cancel_open()

    async def cancel_open(self) -> None:
        """A cancelled run (a cancel by id, ``agent.cancel()``) cancels its tasks still open: none is left running
        after the run that started it ended cancelled."""
        plugin = self.agent._background_tasks
        if plugin is None or not (self.cancelled or self.agent.cancel_signal.is_set()):
            return
        for task in self.agent.state.get(STATE_KEY) or ():
            if isinstance(task, Mapping) and task.get("status") not in ("completed", "failed", "cancelled"):
                try:
                    await plugin._manager.cancel(str(task["task_id"]))
                except Exception:  # noqa: BLE001 - the task ended meanwhile, or the manager is gone
                    logger.debug("could not cancel background task %s", task.get("task_id"), exc_info=True)

    def changes(self) -> list[dict[str, Any]]:
        """The tasks that appeared, changed or were delivered since the last look."""
        tasks = {str(t["task_id"]): t for t in self.agent.state.get(STATE_KEY) or () if isinstance(t, Mapping)}
        out = []
        for task_id, task in tasks.items():
            view = _view(task)
            if self.seen.get(task_id) != view:
                out.append(view)
                self.seen[task_id] = view
        for task_id in [t for t in self.seen if t not in tasks]:  # delivered: the continuation holds its result
            delivered = self._delivered(task_id)
            del self.seen[task_id]
            if delivered is not None:
                out.append(delivered)
        return out

    def _delivered(self, task_id: str) -> dict[str, Any] | None:
        for message in reversed(self.agent.messages):
            for block in message.get("content") or ():
                result = block.get("toolResult") if isinstance(block, Mapping) else None
                if not isinstance(result, Mapping) or result.get("toolUseId") != task_id:
                    continue
                content = list(result.get("content") or ())
                meta: Mapping[str, Any] = next(
                    (b["json"] for b in content if isinstance(b, Mapping) and "json" in b), {})
                text = "\n".join(b["text"] for b in content if isinstance(b, Mapping) and "text" in b)
                view = _view({**meta, "task_id": task_id})
                if text:
                    view["result"] = text
                return view
        return None


def _view(task: Mapping[str, Any]) -> dict[str, Any]:
    view = {"taskId": str(task.get("task_id")), "toolCallId": str(task.get("tool_use_id")),
            "toolName": str(task.get("tool_name")), "status": str(task.get("status"))}
    error = task.get("error")
    if isinstance(error, Mapping) and error.get("message"):
        view["error"] = str(error["message"])
    result = task.get("result")
    if isinstance(result, Mapping):
        text = "\n".join(b["text"] for b in result.get("content") or () if isinstance(b, Mapping) and "text" in b)
        if text:
            view["result"] = text
    return view
