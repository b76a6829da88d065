"""Subagents and tool progress: the nested events of a Strands run.

Three Strands inputs carry another run's (or a tool's) events inside the run's own stream:

* ``multiagent_node_*`` / ``multiagent_handoff`` (a Swarm or Graph): each node invocation is a subagent; a
  node that interrupts ends ``SUBAGENT_FINISHED`` with the ``suspended`` outcome, its interrupts become the run's
  (with the node's ``subagentRunId``), and the resume continues it under the same ``subagentRunId``;
* ``tool_stream`` whose first ``data`` is an agent's ``init_event_loop`` (``Agent.as_tool()``): the inner agent
  is a subagent whose ``parentToolCallId`` is the call;
* any other ``tool_stream`` (an async-generator tool's yields): progress of that call, as an activity message;
  but a yielded ``{"state": {...}}`` of the run's own tools is state, as upstream ``ag_ui_strands`` reads it:
  merged into the shared state and sent as a ``STATE_SNAPSHOT`` (the whole state), and that call's other yields
  are not progress (its last yield is its result, shown as TOOL_CALL_RESULT), so the client holds what a page
  written for upstream expects (the Dojo's agentic generative UI: no activity message).

**A subagent is a run one level down.** Each invocation gets its own :class:`~.translator.Translator` (so its
own machine from the same table: text, reasoning and tool envelopes of two parallel Graph nodes never
interleave in one machine). Its ``start_run`` is ``SUBAGENT_STARTED``, its ``finish`` / ``fail`` are
``SUBAGENT_FINISHED`` / ``SUBAGENT_ERROR``, and every event it emits carries its ``subagentRunId``. It shares
the run's message mirror, so a ``MESSAGES_SNAPSHOT`` keeps each message's owner. The parent records the
moves in its own machine: ``start_subagent`` / ``end_subagent`` / ``tool_progress`` (internal moves), and its
``finish`` / ``fail`` end every subagent still open first.

With ``StrandsAgentConfig(multiagent_events="steps")`` Swarm/Graph nodes take upstream ``ag_ui_strands``'
shape instead: the node lifecycle is chosen once, when the handler is built (``lifecycles.py``).

Nothing of a nested event reaches the client verbatim: handlers read plain fields (ids, text, status), and
progress data goes through :func:`~strands_agui.core.jsonsafe.progress_data`, which drops live objects.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    AssistantMessage,
    SubagentStartedEvent,
)

from ..interrupt_map import fields
from ..jsonsafe import progress_data
from .base import Item, attributed
from .lifecycles import LIFECYCLES, SUBAGENTS, Lifecycle, Subagent
from .run import Handler, Run

PROGRESS_ACTIVITY = "tool_progress"
NODE_FAILED = "NODE_FAILED"
NODE_CANCELLED = "NODE_CANCELLED"
TOOL_FAILED = "TOOL_FAILED"
UNFINISHED = "SUBAGENT_UNFINISHED"


class SubagentHandler(Handler):
    """The open subagents and tool-progress activities of one (sub)run, keyed by node id or tool use id."""

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self.nodes: Lifecycle = LIFECYCLES[run.config.multiagent_events]  # how a Swarm/Graph node shows
        self.open: dict[str, Subagent] = {}
        self.progress: dict[str, str] = {}  # tool use id -> activity message id
        self.state_streams: set[str] = set()  # tool use ids whose yields are state (``{"state": {...}}``)
        self.handoffs: dict[str, dict[str, Any]] = {}  # node id -> the handoff leading to it
        self.resumed = dict(run.facts.resumed_nodes)  # node id -> its parked tool calls (a resume continues them)
        self.suspended: dict[str, Subagent] = {}  # node id -> its invocation this run suspended

    # -- Swarm / Graph ------------------------------------------------------------------------------------
    def on_node_start(self, event: Mapping[str, Any]) -> list[Item]:
        node_id = str(event.get("node_id"))
        handoff = self.handoffs.pop(node_id, None)
        parked = self.resumed.pop(node_id, None)
        owner = self.nodes.node_owner(self.run, self._parked_owner(parked) if parked else None)
        return self._open(node_id, node_id, self.nodes, owner=owner, cause="multiagent_node_start", parked=parked,
                          started=lambda sub: self.nodes.node_started(self.run, sub, event, handoff))

    def on_node_stream(self, event: Mapping[str, Any]) -> list[Item]:
        sub = self.open.get(str(event.get("node_id")))
        inner = event.get("event")
        return self._forward(sub, inner) if sub is not None and isinstance(inner, Mapping) else []

    def on_node_stop(self, event: Mapping[str, Any]) -> list[Item]:
        node_id = str(event.get("node_id"))
        sub = self.open.get(node_id)
        if sub is None:
            return []
        node_result = event.get("node_result")
        status = _status(_get(node_result, "status"))
        if status == "interrupted":
            return self._suspend(node_id, _get(node_result, "interrupts") or ())
        if status == "failed":
            return self._fail(node_id, sub.cancel_message or _error_text(_get(node_result, "result")), NODE_FAILED)
        return self._finish(node_id, _result_text(_get(node_result, "result")))

    def on_node_interrupt(self, event: Mapping[str, Any]) -> list[Item]:
        """A node interrupted (its tool, a tool hook, or a ``BeforeNodeCallEvent`` hook): the run waits for
        its interrupts. A Graph sends no stop for the node, so it is suspended here; a Swarm node that never
        started (a node hook interrupted) has no subagent."""
        node_id, interrupts = str(event.get("node_id")), list(event.get("interrupts") or ())
        out = self._suspend(node_id, interrupts) if node_id in self.open else []
        sub = self.suspended.get(node_id)
        seen = sub.translator.interrupts.waiting if sub is not None else {}
        for interrupt in interrupts:
            known = seen.get(fields(interrupt)[0])
            self.run.interrupts.wait_for([interrupt], known.tool_call_id if known is not None else None,
                                         sub.translator.owner if sub is not None else None)
        return out

    def on_handoff(self, event: Mapping[str, Any]) -> list[Item]:
        value: dict[str, Any] = {"from": list(event.get("from_node_ids") or ()),
                                 "to": list(event.get("to_node_ids") or ())}
        if event.get("message"):
            value["message"] = str(event["message"])
        return self.nodes.handoff(value, self.handoffs.__setitem__)

    def on_node_cancel(self, event: Mapping[str, Any]) -> list[Item]:
        """A ``BeforeNodeCallEvent`` hook cancelled a node: a Graph node already started (its failed stop follows
        and carries this message); a Swarm node never starts (see ``Lifecycle.never_started``)."""
        node_id, message = str(event.get("node_id")), str(event.get("message") or "cancelled")
        sub = self.open.get(node_id)
        if sub is not None:
            sub.cancel_message = message
            return []
        return self.nodes.never_started(node_id, message, self._started_and_cancelled)

    def _started_and_cancelled(self, node_id: str, message: str) -> list[Item]:
        return self.on_node_start({"node_id": node_id}) + self._fail(node_id, message, NODE_CANCELLED)

    # -- tools that stream: agent-as-tool, progress ---------------------------------------------------------
    def on_tool_stream(self, event: Mapping[str, Any]) -> list[Item]:
        payload = event.get("tool_stream_event")
        if not isinstance(payload, Mapping) or not isinstance(payload.get("tool_use"), Mapping):
            return []
        tool_use, data = payload["tool_use"], payload.get("data")
        tool_use_id = str(tool_use.get("toolUseId"))
        if tool_use_id in self.open:
            return self._forward(self.open[tool_use_id], data)
        if not self.run.subagent and isinstance(data, Mapping) and isinstance(data.get("state"), Mapping):
            return self._state(tool_use_id, data["state"])
        if tool_use_id in self.state_streams:
            return []  # a state-streaming call's other yields: its last one is its result (TOOL_CALL_RESULT)
        if tool_use_id in self.progress:
            return self._progress_delta(tool_use_id, data)
        if isinstance(data, Mapping) and "init_event_loop" in data:  # the first event of the inner agent
            out = self._start_agent_tool(tool_use_id, str(tool_use.get("name")))
            return out + self._forward(self.open[tool_use_id], data)
        return self._progress_start(tool_use_id, str(tool_use.get("name")), data)

    def on_results(self, results: list[Mapping[str, Any]], texts: list[str]) -> list[Item]:
        """The tool batch finished: each agent-as-tool subagent ends with its call's result."""
        out: list[Item] = []
        for result, text in zip(results, texts, strict=True):
            tool_use_id = str(result.get("toolUseId"))
            self.progress.pop(tool_use_id, None)
            self.state_streams.discard(tool_use_id)
            if tool_use_id not in self.open:
                continue
            failed = result.get("status") == "error"
            out += self._fail(tool_use_id, text, TOOL_FAILED) if failed else self._finish(tool_use_id, text)
        return out

    def _start_agent_tool(self, tool_use_id: str, name: str) -> list[Item]:
        record = self.run.tools.calls.get(tool_use_id)
        parent_message = (record.parent_message_id or tool_use_id) if record is not None else None
        return self._open(tool_use_id, name, SUBAGENTS, owner=self.run.new_id(), cause="tool_stream",
                          started=lambda sub: [SubagentStartedEvent(
                              subagent_run_id=sub.run_id, name=name, parent_subagent_run_id=self.run.owner,
                              parent_tool_call_id=tool_use_id if record is not None else None,
                              parent_message_id=parent_message)])

    def _state(self, tool_use_id: str, fragment: Mapping[str, Any]) -> list[Item]:
        """A tool's yielded state: merged into the run's state, the whole state sent (upstream sends the yielded
        value as the snapshot, which drops the state's other keys)."""
        self.state_streams.add(tool_use_id)
        safe = progress_data(fragment)
        return self.run.fire("tool_progress", "tool_stream",
                             [self.run.merge_state(safe if isinstance(safe, Mapping) else {})])

    def _progress_start(self, tool_use_id: str, name: str, data: Any) -> list[Item]:
        message_id = self.run.new_id()
        content = {"toolCallId": tool_use_id, "toolName": name, "events": [progress_data(data)]}
        snapshot = ActivitySnapshotEvent(message_id=message_id, activity_type=PROGRESS_ACTIVITY, content=content)
        out = self.run.fire("tool_progress", "tool_stream", [snapshot])
        self.progress[tool_use_id] = message_id
        return out

    def _progress_delta(self, tool_use_id: str, data: Any) -> list[Item]:
        patch = [{"op": "add", "path": "/events/-", "value": progress_data(data)}]
        return self.run.fire("tool_progress", "tool_stream", [ActivityDeltaEvent(
            message_id=self.progress[tool_use_id], activity_type=PROGRESS_ACTIVITY, patch=patch)])  # type: ignore[arg-type]

    # -- one subagent's life ----------------------------------------------------------------------------------
    def _open(self, key: str, name: str, lifecycle: Lifecycle, *, owner: str | None, cause: str,
              started: Callable[[Subagent], list[Item]], parked: Collection[str] | None = None) -> list[Item]:
        """A subagent invocation: its own (sub)run, started with the events ``started`` gives (computed before its
        ``start_run``); a resumed node's parked calls' results come first, on the cards the client holds."""
        nested = self.run.nested(owner, name, self.run.facts.of_subagent(name, parked or None))
        sub = Subagent(name, nested, lifecycle)
        events = started(sub)
        self.run.fire("start_subagent", cause)
        out = nested.fire("start_run", cause, events)
        self.open[key] = sub
        return out

    def _forward(self, sub: Subagent, inner: Any) -> list[Item]:
        if not isinstance(inner, Mapping):
            return []
        return attributed(sub.translator.handle(inner), sub.translator.owner)

    def _finish(self, key: str, result: str | None) -> list[Item]:
        sub = self.open[key]
        return self._end(key, "finish", sub.lifecycle.finished(sub, result))

    def _suspend(self, key: str, interrupts: Any) -> list[Item]:
        """The node waits for its interrupts: its own machine ends ``paused``; a resume continues it."""
        sub = self.open[key]
        ids = [interrupt.id for interrupt in sub.translator.interrupts.wait_for(interrupts)]
        out = self._end(key, "finish", sub.lifecycle.suspended(sub, ids))
        self.suspended[key] = sub
        return out

    def _parked_owner(self, parked: Collection[str]) -> str | None:
        """The ``subagentRunId`` of the suspended invocation: the client's message holding the parked calls."""
        for message in self.run.input.messages:
            if isinstance(message, AssistantMessage) and any(c.id in parked for c in message.tool_calls or ()):
                return message.subagent_run_id
        return None

    def _fail(self, key: str, message: str, code: str) -> list[Item]:
        sub = self.open[key]
        return self._end(key, "fail", sub.lifecycle.failed(sub, message, code))

    def _end(self, key: str, trigger: str, ending: list[Item]) -> list[Item]:
        """End the open subagent ``key``: close what it holds open, then its ``finish`` / ``fail`` with ``ending``
        (its SUBAGENT_FINISHED / ERROR, computed before the move); it stays open until that move is made."""
        sub = self.open[key]
        nested = sub.translator
        out = attributed(nested.close_open(trigger) + nested.subagents.close_all(trigger == "fail"), nested.owner)
        out += nested.fire(trigger, trigger, ending)
        del self.open[key]
        self.run.outcome.absorb(nested.outcome)  # the run's usage includes its subagents' model calls
        self.run.fire("end_subagent", trigger)
        return out

    def close_all(self, failed: bool) -> list[Item]:
        """End every subagent still open: the run ends (or fails) before Strands said they stopped."""
        out: list[Item] = []
        reason = "the run failed before this subagent finished" if failed else "ended without a result"
        for key in list(self.open):
            out += self._fail(key, reason, UNFINISHED)
        self.progress.clear()
        self.state_streams.clear()
        return out


def _get(obj: Any, key: str) -> Any:
    """A field of a live Strands object or of its recorded (sanitized) dict."""
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def _status(status: Any) -> str:
    return str(status.value if isinstance(status, enum.Enum) else status or "").lower()


def _error_text(result: Any) -> str:
    if isinstance(result, BaseException):
        return f"{type(result).__name__}: {result}"
    record = _get(result, "__exception__")
    if isinstance(record, Mapping):
        return f"{record.get('type')}: {record.get('message')}"
    return "the node failed"


def _result_text(result: Any) -> str | None:
    """The text of a node's final message (an AgentResult, live or recorded); None for other results."""
    message = _get(result, "message")
    content = _get(message, "content") if message is not None else None
    if not isinstance(content, list):
        return None
    return "".join(b["text"] for b in content if isinstance(b, Mapping) and isinstance(b.get("text"), str))

