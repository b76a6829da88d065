"""Background tasks (``runtime/building/background_watch.py``'s events): one activity message per task.

The first sight of a task is ``ACTIVITY_SNAPSHOT`` ``{activityType: "background_task", content: {taskId,
toolCallId, toolName, status}}``; each change is an ``ACTIVITY_DELTA`` replacing ``/status`` and adding
``/result`` (the task's result text, also when Strands delivered it into the conversation) or ``/error``. The
moves are the table's internal ``task_progress`` (legal between envelopes).

A task started by an earlier run of the thread (``wait_for_completion=False``: it outlived that run) keeps the
activity message the client already holds, never a second card: the official clients never send activity messages
back, so the run's facts name it (``RunFacts.task_cards``: its message id, from the run that showed it) and the
task's first sight is an ``ACTIVITY_SNAPSHOT`` on that message (replacing what the client held); a client that
does send it (``role: activity``, its ``content.taskId``) gets deltas of it.

A run that ends halted (a cancel by id, Strands' ``cancelled``, a frontend tool's halt: each stops Strands, and
``runtime/building/background_watch.py`` then cancels the tasks the run started still open) says so before its terminal
event: a delta to ``cancelled`` for each of its own tasks the client holds unsettled
(:meth:`BackgroundHandler.on_halted`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui.core import ActivityDeltaEvent, ActivitySnapshotEvent

from ..jsonsafe import progress_data
from .base import Item
from .run import Handler, Run

ACTIVITY = "background_task"
SETTLED = frozenset({"completed", "failed", "cancelled"})  # Strands' terminal statuses (is_task_status_terminal)


class BackgroundHandler(Handler):
    """The run's background tasks, by task id: their activity message and what the client holds of them."""

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self.tasks: dict[str, tuple[str, dict[str, Any]]] = {}  # task id -> (activity message id, content)
        self.earlier: set[str] = set()  # tasks an earlier run started (their card is in the input)

    def on_tasks(self, event: Mapping[str, Any]) -> list[Item]:
        out: list[Item] = []
        for task in event.get("strands_agui_background_tasks") or ():
            if isinstance(task, Mapping):
                out += self._one({str(k): progress_data(v) for k, v in task.items()})
        return out

    def _one(self, task: dict[str, Any]) -> list[Item]:
        task_id = str(task.get("taskId"))
        if task_id not in self.tasks and (card := self._card(task_id)) is not None:
            self.tasks[task_id] = card  # an earlier run's, sent back by the client: changes are its deltas
            self.earlier.add(task_id)
        if task_id not in self.tasks:
            known = self.run.facts.task_cards.get(task_id)
            if known is not None:  # an earlier run's card the client holds (it never sends it back)
                message_id = str(known["messageId"])
                task["toolCallId"] = str(known.get("toolCallId") or task.get("toolCallId"))
                self.earlier.add(task_id)
            else:
                record = self.run.tools.calls.get(str(task.get("toolCallId")))
                if record is not None:
                    task["toolCallId"] = record.wire_id
                message_id = self.run.new_id()
            self.tasks[task_id] = (message_id, task)  # a snapshot on the same message replaces what it held
            return self.run.fire("task_progress", "background_task", [
                ActivitySnapshotEvent(message_id=message_id, activity_type=ACTIVITY, content=task)])
        message_id, held = self.tasks[task_id]
        if task_id in self.earlier:  # its call is an earlier run's: the card keeps the id the client knows
            task.pop("toolCallId", None)
        patch = [{"op": "replace" if key in held else "add", "path": f"/{key}", "value": value}
                 for key, value in task.items() if held.get(key) != value]
        self.tasks[task_id] = (message_id, {**held, **task})
        if not patch:
            return []
        return self.run.fire("task_progress", "background_task", [
            ActivityDeltaEvent(message_id=message_id, activity_type=ACTIVITY, patch=patch)])  # type: ignore[arg-type]

    def _card(self, task_id: str) -> tuple[str, dict[str, Any]] | None:
        """The activity message of a task the client already holds (an earlier run's), from the run's input."""
        for message in reversed(self.run.input.messages):
            if getattr(message, "role", None) != "activity" or getattr(message, "activity_type", None) != ACTIVITY:
                continue
            content = getattr(message, "content", None)
            if isinstance(content, Mapping) and str(content.get("taskId")) == task_id:
                return message.id, dict(content)
        return None

    def on_halted(self) -> list[Item]:
        """The run halted (its tasks still open were cancelled with it): each of its own tasks the client holds
        unsettled is shown ``cancelled``, before the terminal event."""
        out: list[Item] = []
        for _, content in self.halted_cards().values():
            out += self._one(content)
        return out

    def halted_cards(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """What a halt shows of the run's own tasks the client holds unsettled: activity message id -> (task id,
        content ``cancelled``); a thread kept before the terminal event keeps them so (``ServerThread.keep``)."""
        return {message_id: (task_id, {**held, "status": "cancelled"})
                for task_id, (message_id, held) in list(self.tasks.items())
                if task_id not in self.earlier and held.get("status") not in SETTLED}
