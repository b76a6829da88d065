"""Background tasks (``runtime/background_watch.py``'s events): one activity message per task.

The first sight of a task is ``ACTIVITY_SNAPSHOT`` ``{activityType: "background_task", content: {taskId,
toolCallId, toolName, status}}``; each change is an ``ACTIVITY_DELTA`` replacing ``/status`` and adding
``/result`` (the task's result text, also when Strands delivered it into the conversation) or ``/error``. The
moves are the table's internal ``task_progress`` (legal between envelopes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui.core import ActivityDeltaEvent, ActivitySnapshotEvent

from ..jsonsafe import progress_data
from .base import Item
from .run import Handler, Run

ACTIVITY = "background_task"


class BackgroundHandler(Handler):
    """The run's background tasks, by task id: their activity message and what the client holds of them."""

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self.tasks: dict[str, tuple[str, dict[str, Any]]] = {}  # task id -> (activity message id, content)

    def on_tasks(self, event: Mapping[str, Any]) -> list[Item]:
        out: list[Item] = []
        for task in event.get("strands_agui_background_tasks") or ():
            if isinstance(task, Mapping):
                out += self._one({str(k): progress_data(v) for k, v in task.items()})
        return out

    def _one(self, task: dict[str, Any]) -> list[Item]:
        task_id = str(task.get("taskId"))
        record = self.run.tools.calls.get(str(task.get("toolCallId")))
        if record is not None:
            task["toolCallId"] = record.wire_id
        if task_id not in self.tasks:
            message_id = self.run.new_id()
            self.tasks[task_id] = (message_id, task)
            return self.run.move("task_progress", "background_task", [
                ActivitySnapshotEvent(message_id=message_id, activity_type=ACTIVITY, content=task)])
        message_id, held = self.tasks[task_id]
        patch = [{"op": "replace" if key in held else "add", "path": f"/{key}", "value": value}
                 for key, value in task.items() if held.get(key) != value]
        self.tasks[task_id] = (message_id, {**held, **task})
        if not patch:
            return []
        return self.run.move("task_progress", "background_task", [
            ActivityDeltaEvent(message_id=message_id, activity_type=ACTIVITY, patch=patch)])  # type: ignore[arg-type]
