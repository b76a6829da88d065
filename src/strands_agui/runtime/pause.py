"""One run's view of its thread's pause: which Strands agent it runs, what it sends Strands, and what it
leaves in the session store when Strands is done.

* A request **with** ``resume`` holds the thread's stored pause for the whole run, restores the parked
  Strands agent (or Swarm/Graph) from it, checks the entries against the pending interrupts and sends them as
  ``interruptResponse`` blocks. When the run ends without new interrupts the pause is removed.
* A resume whose entries are all ``cancelled``, on a thread with nothing (any more) to resume, finishes at
  once: nothing runs and nothing is waited for (how a client drops an expired interrupt).
* A run Strands stops at a **checkpoint** (``Agent(checkpointing=True)``) is parked like a pause, the checkpoint
  in the parked agent's ``state`` (``core/checkpoints.py``); a resume answering its interrupt continues from it
  (``checkpointResume``), a ``cancelled`` one drops it.
* A request **without** ``resume`` on a paused thread abandons the pause: the client's messages are the
  truth (the official client never does this: it refuses to run a thread with unanswered interrupts). A run
  that never pauses reads one path and writes nothing; a run that pauses parks its agent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from typing import Any

from ag_ui.core import AssistantMessage, UserMessage
from strands import Agent
from strands.hooks import AfterInvocationEvent
from strands.interrupt import _InterruptState
from strands.multiagent.base import MultiAgentBase
from strands.types.exceptions import SessionException

from ..config import StrandsAgentConfig
from ..core import checkpoints
from ..core.interrupt_map import resume_prompt
from ..core.plan import RunPlan
from ..errors import RunFailure, RunRefused
from .building.approval import install_approval
from .building.multiagent import task_of
from .building.run_agent import AgentSource, build_run_agent
from .building.tool_selection import narrow_tools
from .storage.sessions import SessionStore, attach


@contextmanager
def store_errors() -> Iterator[None]:
    """A failing session store (I/O, a corrupt session) is the documented ``SESSION_ERROR``."""
    try:
        yield
    except (OSError, SessionException) as exc:
        raise RunRefused("SESSION_ERROR", f"{type(exc).__name__}: {exc}") from exc


class ThreadPause:
    """The pause bookkeeping of one run on ``principal``'s thread ``input_data.thread_id`` (``stack`` holds the
    thread's lock)."""

    def __init__(self, store: SessionStore, plan: RunPlan, stack: ExitStack, principal: str | None = None) -> None:
        self.store = store
        self.plan = plan  # the run prepared: its input, history, tools, approvals, session (``core/plan.py``)
        self.input = plan.input
        self.thread = plan.input.thread_id
        self.principal = principal  # whose thread (None: the anonymous principal), see server/request/principals.py
        self.stack = stack
        self.runner: Agent | MultiAgentBase | None = None
        self.resuming = plan.resumes
        self.resumed_nodes: dict[str, list[str]] = {}  # Swarm/Graph node id -> the parked calls it continues
        self.on_agent: Callable[[Agent], None] | None = None  # shapes a new run's agent (a server-side thread's)
        self.checkpoint: dict[str, Any] | None = None  # the checkpoint Strands stopped this run at

    def _watch_checkpoints(self, runner: Agent | MultiAgentBase) -> None:
        if isinstance(runner, Agent) and runner._checkpointing:
            runner.hooks.add_callback(AfterInvocationEvent, self._after_invocation)

    def _after_invocation(self, event: AfterInvocationEvent) -> None:
        result = event.result
        self.checkpoint = checkpoints.checkpoint_of(result) if result is not None and \
            result.stop_reason == "checkpoint" else None

    def open(self, source: AgentSource, config: StrandsAgentConfig) -> tuple[Agent | MultiAgentBase | None, Any]:
        """The run's Strands agent (or Swarm/Graph) and what to stream it with (no agent: a resume that only
        cancels what is no longer waited for, so the run has nothing to do); raises :class:`RunRefused`."""
        if self.resuming:
            with store_errors():
                return self._resume(source, config)
        with store_errors():
            if self.store.paused_at(self.thread, self.principal) is not None:
                with self.store.hold(self.thread, self.principal):
                    self.store.remove(self.thread, self.principal)
        runner = self.runner = self._build(source, list(self.plan.history))
        if self.on_agent is not None and isinstance(runner, Agent):
            self.on_agent(runner)
        self._watch_checkpoints(runner)
        prompt = self.plan.prompt_blocks()
        if isinstance(runner, MultiAgentBase):
            return runner, task_of(prompt, "Hello")
        return runner, prompt

    def _build(self, source: AgentSource, history: list[dict[str, Any]] | None) -> Agent | MultiAgentBase:
        """The run's agent from the plan: its history, its tools narrowed, its gated tools, its own session."""
        plan = self.plan
        runner = build_run_agent(source, self.input, history)
        narrow_tools(runner, plan.tools, plan.frontend_tools | plan.parked_tools)
        install_approval(runner, plan.approvals)
        self._attach_provided(runner)
        return runner

    def _resume(self, source: AgentSource, config: StrandsAgentConfig) -> tuple[Agent | MultiAgentBase | None, Any]:
        cancels_only = all(entry.status == "cancelled" for entry in self.input.resume or ())
        try:
            self.stack.enter_context(self.store.hold(self.thread, self.principal))
        except RunRefused as exc:
            if exc.code == "INTERRUPT_NOT_FOUND" and cancels_only:
                return None, None  # nothing is waited for any more: the run just finishes
            raise
        paused_at = self.store.paused_at(self.thread, self.principal)
        if paused_at is None or self.store.expired(paused_at):
            self.store.remove(self.thread, self.principal)
            if cancels_only:
                return None, None
            raise RunRefused("INTERRUPT_EXPIRED", f"the paused run is older than the retention of "
                                                  f"{self.store.retention_seconds:.0f} s and was removed")
        # a Swarm/Graph template's node copies start from the conversation the paused run started from
        runner = self._build(source, list(self.plan.history) if isinstance(source, MultiAgentBase) else None)
        # then the pause's session: its messages and interrupt state win
        attach(runner, self.store.session_manager(self.thread, self.principal))
        state = interrupt_state(runner)
        pending = {i.id: i for i in state.interrupts.values() if i.response is None} if state.activated else {}
        if not pending and isinstance(runner, Agent) and runner.state.get(checkpoints.STATE_KEY):
            return self._from_checkpoint(runner)
        if not pending:
            self.store.remove(self.thread, self.principal)
            raise RunRefused("INTERRUPT_NOT_FOUND", "the thread has no pending interrupt (already resumed?)")
        parked = parked_calls(runner)
        self._refuse_new_messages({call for calls in parked.values() for call in calls})
        prompt = resume_prompt(self.input.resume or [], pending, wrapped=config.resume_payload == "wrapped",
                               confirmers=confirmers(runner))
        self.runner = runner
        self._watch_checkpoints(runner)
        self.resumed_nodes = {node: calls for node, calls in parked.items() if node}
        return runner, prompt

    def _from_checkpoint(self, runner: Agent) -> tuple[Agent | None, Any]:
        """A resume of a parked checkpoint: its one entry answers the checkpoint's interrupt."""
        parked = runner.state.get(checkpoints.STATE_KEY)
        entries = list(self.input.resume or ())
        if [e.interrupt_id for e in entries] != [parked["interruptId"]]:
            raise RunRefused("INTERRUPT_NOT_FOUND", f"the thread waits for checkpoint {parked['interruptId']!r} "
                                                    "only: answer it alone")
        if entries[0].status == "cancelled":
            self.store.remove(self.thread, self.principal)
            return None, None
        runner.state.delete(checkpoints.STATE_KEY)
        self._watch_checkpoints(runner)
        self.runner = runner
        return runner, {"checkpointResume": {"checkpoint": parked["checkpoint"]}}

    def _attach_provided(self, runner: Agent | MultiAgentBase) -> None:
        """Keep an agent's conversation and state in the provider's session (``session_provider.py``): restored
        from it now (the stored conversation wins over the client's), persisted by Strands from now on."""
        if self.plan.session is not None and isinstance(runner, Agent):
            with store_errors():
                attach(runner, self.plan.session)

    def facts(self) -> dict[str, Any]:
        """What the run's translator is told: the Swarm/Graph nodes this resume continues (their parked
        calls), and when a pause this run leaves expires (ISO 8601, from the run's start: the store keeps
        the pause at least that long; none when it keeps pauses forever)."""
        facts: dict[str, Any] = {"resumed_nodes": self.resumed_nodes} if self.resumed_nodes else {}
        if self.runner is not None and confirmers(self.runner):
            facts["confirmers"] = sorted(confirmers(self.runner))
        expires = self.store.expires_at(time.time())
        if expires is not None:
            facts["expires_at"] = datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return facts

    def _refuse_new_messages(self, parked_calls: set[str]) -> None:
        """The model continues the parked conversation: a user message the client added after the parked
        tool calls would never reach it, so such a resume is refused (send it once the resumed run is done)."""
        messages = list(self.input.messages)
        last = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)
                    and any(c.id in parked_calls for c in m.tool_calls or ())), default=None)
        if last is not None and any(isinstance(m, UserMessage) for m in messages[last + 1:]):
            raise RunRefused("RESUME_INVALID", "a resume cannot carry a new user message: the paused run "
                                               "continues first; send the message after it finishes")

    def settle(self) -> RunFailure | None:
        """After Strands is done, before the terminal event: park a new pause, or forget a finished one."""
        if self.runner is None:
            return None
        try:
            if self.checkpoint is not None and isinstance(self.runner, Agent):
                self.runner.state.set(checkpoints.STATE_KEY, {
                    "interruptId": checkpoints.interrupt_id(self.input.run_id), "checkpoint": self.checkpoint})
                manager = self.runner._session_manager if self.resuming else None
                if manager is not None:  # the pause's own session (held by this run): kept in step with it
                    manager.sync_agent(self.runner)
                    self.store.refresh(self.thread, self.principal)
                else:
                    self.store.park(self.thread, self.runner, self.principal)
            elif interrupt_state(self.runner).activated:
                if self.resuming:
                    # the attached session manager already holds the state
                    self.store.refresh(self.thread, self.principal)
                else:
                    self.store.park(self.thread, self.runner, self.principal)
            elif self.resuming:
                self.store.remove(self.thread, self.principal)
        except RunRefused as exc:
            return exc.failure
        except Exception as exc:  # noqa: BLE001 - a store failure is a documented RUN_ERROR
            return RunFailure("SESSION_ERROR", f"{type(exc).__name__}: {exc}")
        return None


def confirmers(runner: Agent | MultiAgentBase) -> frozenset[str]:
    """The names of an agent's intervention handlers (an interrupt named after one is a ``Confirm``)."""
    registry = getattr(runner, "_intervention_registry", None)
    return frozenset(h.name for h in registry.handlers) if registry is not None else frozenset()


def interrupt_state(runner: Agent | MultiAgentBase) -> _InterruptState:
    """Strands' interrupt state of an Agent, Swarm or Graph (another orchestrator has none: it never pauses)."""
    state = getattr(runner, "_interrupt_state", None)
    return state if isinstance(state, _InterruptState) else _InterruptState()


def parked_calls(runner: Agent | MultiAgentBase) -> dict[str, list[str]]:
    """The parked tool calls a resume continues, by who parked them: ``""`` for an agent, else the Swarm/Graph
    node id (read from the orchestrator's interrupt context, where Strands keeps each interrupted node's
    agent state)."""
    if isinstance(runner, Agent):
        parked = runner._interrupt_state.pending_tool_execution
        return {"": _tool_use_ids(parked.assistant_message)} if parked is not None else {}
    out: dict[str, list[str]] = {}
    for node_id, context in interrupt_state(runner).context.items():
        node_state = context.get("interrupt_state") if isinstance(context, dict) else None
        pending = node_state.get("pending_tool_execution") if isinstance(node_state, dict) else None
        if isinstance(pending, dict):
            out[node_id] = _tool_use_ids(pending.get("assistant_message") or {})
    return out


def _tool_use_ids(message: Any) -> list[str]:
    return [str(b["toolUse"]["toolUseId"]) for b in message.get("content") or () if "toolUse" in b]
