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
A run that ends halted (cancelled, or stopped for a frontend tool) cancels the tasks it left open
(:meth:`BackgroundWatch.cancel_open`; the translator then shows them ``cancelled``).

**A task outliving its run** (``background_tasks={"wait_for_completion": False, ...}``: Strands returns while the
task works, and the tool goes on running on the server's event loop). Each run works on its own copy of the
agent, so the run that ends with tasks unsettled leaves that copy's background-tasks plugin in :data:`DETACHED`,
under its thread (``session_id(thread, principal)``), in this process. The **next run of the same thread** takes
over every task that has settled meanwhile, before Strands' first model call (and again after each model turn):
the task moves into the new run's plugin, and Strands delivers it its own way (the synthetic
``strands_manage_background_task`` call and result the model reads); the client gets the task's status and
result on the card it already holds (the run noted each card as it went out, :func:`note_card`; the next run's
facts name them, ``RunFacts.task_cards``, since the official clients never send activity messages back).
Tasks still working are shown with their current status and stay held; a next run that waits for its tasks
(``wait_for_completion``, Strands' default: e.g. the resume of a run that paused while its task worked) waits
for them too and delivers them before it ends (:meth:`BackgroundWatch.install`), and a resumed agent's restored
copy of a held task (which Strands marks failed) gives way to the held task. A held run's tasks are cancelled
by the run's cancel route after its ``RUN_FINISHED`` (:meth:`Detached.cancel_run`); a thread whose tasks nobody
collected within :data:`HOLD_SECONDS` has them cancelled and dropped. Nothing of this survives the process (as
in Strands, whose restored state marks unsettled tasks failed), and a next run served by another worker does
not see them: run one worker, or keep ``wait_for_completion`` on. A run's stream ends at its terminal event, so
the resumable stream never carries a later status: a reconnect replays the run as it ended.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import ActivitySnapshotEvent
from strands import Agent
from strands.hooks import AfterInvocationEvent

from ...core.handlers.background import ACTIVITY

logger = logging.getLogger(__name__)

KEY = "strands_agui_background_tasks"
STATE_KEY = "strands.background_tasks"  # strands/background_tasks/_background_tasks.py
SETTLED = frozenset({"completed", "failed", "cancelled"})  # strands' is_task_status_terminal
HOLD_SECONDS = 3600.0  # how long an ended run's unsettled tasks wait for the thread's next run


@dataclass
class Held:
    """An ended run's background-tasks plugin whose tasks outlived it (Strands' ``_BackgroundTasks``)."""

    plugin: Any
    run_id: str
    principal: str | None
    cards: Mapping[str, Mapping[str, str]]  # task id -> {messageId, toolCallId}: the card the run showed it on
    since: float = field(default_factory=time.monotonic)

    def tasks(self) -> list[Mapping[str, Any]]:
        return list(self.plugin._task_snapshots())

    def take(self, task_id: str) -> None:
        """The task is the next run's now: no longer this plugin's."""
        with self.plugin._tasks_lock:
            self.plugin._tasks.pop(task_id, None)

    async def cancel_open(self) -> int:
        cancelled = 0
        for task in self.tasks():
            if task.get("status") not in SETTLED:
                try:
                    await self.plugin._manager.cancel(str(task["task_id"]))
                    cancelled += 1
                except Exception:  # noqa: BLE001 - it settled meanwhile
                    logger.debug("could not cancel background task %s", task.get("task_id"), exc_info=True)
        return cancelled


class Detached:
    """Ended runs' unsettled background tasks, by thread (``session_id``), in this process."""

    def __init__(self) -> None:
        self._by_thread: dict[str, list[Held]] = {}
        self._lock = threading.Lock()

    def hold(self, thread: str, held: Held) -> None:
        with self._lock:
            self._by_thread.setdefault(thread, []).append(held)

    def held(self, thread: str) -> list[Held]:
        """The thread's held runs (those older than ``HOLD_SECONDS`` are swept by :meth:`expired`)."""
        with self._lock:
            return list(self._by_thread.get(thread, ()))

    def holding(self) -> int:
        """How many threads have tasks held here (a health answer's "busy": their results live only here)."""
        with self._lock:
            return len(self._by_thread)

    def release(self, thread: str, held: Held) -> None:
        with self._lock:
            kept = [h for h in self._by_thread.get(thread, ()) if h is not held]
            if kept:
                self._by_thread[thread] = kept
            else:
                self._by_thread.pop(thread, None)

    def expired(self) -> list[tuple[str, Held]]:
        """Held runs nobody collected within ``HOLD_SECONDS``, released (the caller cancels their tasks)."""
        now = time.monotonic()
        with self._lock:
            old = [(t, h) for t, hs in self._by_thread.items() for h in hs if now - h.since > HOLD_SECONDS]
        for thread, held in old:
            self.release(thread, held)
        return old

    async def cancel_run(self, run_id: str, principal: str | None) -> int | None:
        """The run's cancel route after its ``RUN_FINISHED``: its held tasks still open are cancelled (the next
        run of the thread shows them ``cancelled``). None: this process holds nothing of that run."""
        with self._lock:
            mine = [h for hs in self._by_thread.values() for h in hs
                    if h.run_id == run_id and h.principal == principal]
        if not mine:
            return None
        return sum([await held.cancel_open() for held in mine])


DETACHED = Detached()  # this process's


class BackgroundWatch:
    """One run's view of its agent's background tasks."""

    def __init__(self, agent: Agent, thread: str | None = None, run_id: str = "", principal: str | None = None,
                 cards: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.agent = agent
        self.thread, self.run_id, self.principal = thread, run_id, principal  # thread: its session id
        self.cards = {} if cards is None else cards  # filled as the run's task cards go out (note_card)
        self.seen: dict[str, dict[str, Any]] = {}
        self.cancelled = False  # Strands' result said the run was cancelled

    async def annotate(self, stream: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
        """``stream`` with a task event at each turn boundary where the tasks changed; the source is always
        closed with ``aclose()``. Tasks earlier runs of the thread left settled are taken over first."""
        iterator = aiter(stream)
        try:
            await self._expire()
            self.adopt()
            changed = self.changes()
            if changed:
                yield {KEY: changed}
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
                    self.adopt()  # delivered at the next model call (or by Strands' end of invocation)
                    changed = self.changes()
                    if changed:
                        yield {KEY: changed}
        finally:
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()
            await self.cancel_open()
            self.detach()

    def adopt(self) -> None:
        """Take over the tasks earlier runs of the thread left that have settled: into this run's plugin, where
        Strands delivers them into the conversation before its next model call."""
        plugin = self.agent._background_tasks
        if plugin is None or self.thread is None:
            return
        for held in DETACHED.held(self.thread):
            if held.principal != self.principal:
                continue
            for task in held.tasks():
                task_id = str(task["task_id"])
                if task.get("status") in SETTLED:
                    held.take(task_id)
                    plugin._store_task(dict(task))  # type: ignore[arg-type]
                elif plugin._tasks.get(task_id) is not None:  # a resume's restored copy, which Strands marked
                    with plugin._tasks_lock:                    # failed: the task is still the held run's
                        plugin._tasks.pop(task_id, None)
                    plugin._persist_tasks()
            if not held.tasks():
                DETACHED.release(self.thread, held)

    def install(self) -> None:
        """With ``wait_for_completion`` (Strands' default), the invocation also waits for the thread's held tasks
        (an earlier run's, e.g. the paused run this one resumes), then takes them over before Strands' own end
        of invocation delivers what settled (``AfterInvocationEvent`` callbacks run last-registered first)."""
        plugin = self.agent._background_tasks
        if plugin is not None and self.thread is not None and plugin._config.get("wait_for_completion", True):
            self.agent.add_hook(self._settle_held, AfterInvocationEvent)

    async def _settle_held(self, event: AfterInvocationEvent) -> None:
        if self.agent._interrupt_state.activated:
            return
        waiters = [asyncio.ensure_future(held.plugin._manager.wait(str(task["task_id"])))
                   for held in self._held() for task in held.tasks() if task.get("status") not in SETTLED]
        try:
            while waiters and not self.agent.cancel_signal.is_set():
                _, pending = await asyncio.wait(waiters, timeout=0.1)
                waiters = list(pending)
        finally:
            for waiter in waiters:
                waiter.cancel()
            await asyncio.gather(*waiters, return_exceptions=True)
        self.adopt()

    def detach(self) -> None:
        """A run that ended with tasks unsettled (``wait_for_completion=False``), not halted: they stay held for
        the thread's next run."""
        plugin = self.agent._background_tasks
        if plugin is None or self.thread is None or self.cancelled or self.agent.cancel_signal.is_set():
            return
        if plugin._task_snapshots():
            DETACHED.hold(self.thread, Held(plugin, self.run_id, self.principal, self.cards))

    def task_cards(self) -> dict[str, dict[str, str]]:
        """The cards earlier runs of the thread showed their held tasks on (the run's ``task_cards`` fact)."""
        return {task_id: dict(card) for held in self._held() for task_id, card in held.cards.items()}

    @staticmethod
    async def _expire() -> None:
        for _, held in DETACHED.expired():
            await held.cancel_open()

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
        tasks = {str(t["task_id"]): t for held in self._held() for t in held.tasks()}  # earlier runs', working
        tasks.update((str(t["task_id"]), t) for t in self.agent.state.get(STATE_KEY) or () if isinstance(t, Mapping))
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

    def _held(self) -> list[Held]:
        if self.thread is None:
            return []
        return [h for h in DETACHED.held(self.thread) if h.principal == self.principal]

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


def note_card(cards: dict[str, dict[str, str]], event: Any) -> None:
    """Remember the card (activity message) a task of the run is shown on, from the run's own events: a task that
    outlives the run is shown on the same card by the thread's next run."""
    if isinstance(event, ActivitySnapshotEvent) and event.activity_type == ACTIVITY \
            and isinstance(event.content, Mapping) and "taskId" in event.content:
        cards.setdefault(str(event.content["taskId"]), {"messageId": event.message_id,
                                                        "toolCallId": str(event.content.get("toolCallId"))})


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
