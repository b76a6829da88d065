"""How a Swarm/Graph node's life shows on the wire: the two shapes ``StrandsAgentConfig.multiagent_events``
chooses between, once per run (``SubagentHandler`` picks one when it is built).

* :data:`SUBAGENTS` (the default): each node invocation is a subagent, ``SUBAGENT_STARTED`` ...
  ``SUBAGENT_FINISHED`` / ``SUBAGENT_ERROR`` under its own ``subagentRunId``; a handoff goes on the target's
  ``SUBAGENT_STARTED`` ``metadata.handoff``; a node cancelled before it started is shown started and failed.
  An agent called as a tool always has this shape.
* :data:`STEPS` (``"steps"``, upstream ``ag_ui_strands``' shape): ``STEP_STARTED`` / ``STEP_FINISHED`` named
  ``"<node_type>:<node_id>"``, ``CUSTOM MultiAgentHandoff``, ``CUSTOM MultiAgentNodeStatus`` (a failed node),
  ``CUSTOM MultiAgentNodeCancel``; node events carry no ``subagentRunId``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    CustomEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentFinishedSuspendedOutcome,
    SubagentStartedEvent,
)

from .base import Item
from .run import Run

HANDOFF_EVENT = "MultiAgentHandoff"  # upstream's names, used in "steps" mode
NODE_STATUS_EVENT = "MultiAgentNodeStatus"
NODE_CANCEL_EVENT = "MultiAgentNodeCancel"


@dataclass
class Subagent:
    """One open subagent invocation: its own (sub)run, and how its life shows (``label``: its step name)."""

    name: str
    translator: Run
    lifecycle: Lifecycle
    label: str = ""
    cancel_message: str | None = None

    @property
    def run_id(self) -> str:
        """Its ``subagentRunId`` ("" for a step: in "steps" mode a node has none)."""
        return self.translator.owner or ""


class Lifecycle:
    """The subagent shape: the events of a subagent's start and end, a handoff, a node cancelled unstarted."""

    def node_owner(self, run: Run, parked_owner: str | None) -> str | None:
        """A node's ``subagentRunId``: a resumed node continues under the one the client holds."""
        return parked_owner or run.new_id()

    def node_started(self, run: Run, sub: Subagent, event: Mapping[str, Any],
                     handoff: dict[str, Any] | None) -> list[Item]:
        return [SubagentStartedEvent(subagent_run_id=sub.run_id, name=sub.name, parent_subagent_run_id=run.owner,
                                     metadata={"handoff": handoff} if handoff else None)]

    def handoff(self, value: dict[str, Any], keep: Callable[[str, dict[str, Any]], None]) -> list[Item]:
        """Kept for the target's start (``keep(node id, handoff)``)."""
        for node_id in value["to"]:
            keep(str(node_id), value)
        return []

    def never_started(self, node_id: str, message: str, show: Callable[[str, str], list[Item]]) -> list[Item]:
        """A node cancelled before it started: ``show(node id, message)`` starts and fails it."""
        return show(node_id, message)

    def finished(self, sub: Subagent, result: str | None) -> list[Item]:
        return [SubagentFinishedEvent(subagent_run_id=sub.run_id, result=result or None)]

    def suspended(self, sub: Subagent, interrupt_ids: list[str]) -> list[Item]:
        return [SubagentFinishedEvent(subagent_run_id=sub.run_id,
                                      outcome=SubagentFinishedSuspendedOutcome(interrupt_ids=interrupt_ids or None))]

    def failed(self, sub: Subagent, message: str, code: str) -> list[Item]:
        return [SubagentErrorEvent(subagent_run_id=sub.run_id, message=message or "failed", code=code)]


class StepLifecycle(Lifecycle):
    """The "steps" shape of a Swarm/Graph node (see the module docstring)."""

    def node_owner(self, run: Run, parked_owner: str | None) -> str | None:
        return None

    def node_started(self, run: Run, sub: Subagent, event: Mapping[str, Any],
                     handoff: dict[str, Any] | None) -> list[Item]:
        sub.label = f"{event.get('node_type') or 'agent'}:{sub.name}"
        return [StepStartedEvent(step_name=sub.label)]

    def handoff(self, value: dict[str, Any], keep: Callable[[str, dict[str, Any]], None]) -> list[Item]:
        return [CustomEvent(name=HANDOFF_EVENT, value={"from_nodes": value["from"], "to_nodes": value["to"],
                                                       "message": value.get("message")})]

    def never_started(self, node_id: str, message: str, show: Callable[[str, str], list[Item]]) -> list[Item]:
        return [CustomEvent(name=NODE_CANCEL_EVENT, value={"node_id": node_id, "message": message})]

    def finished(self, sub: Subagent, result: str | None) -> list[Item]:
        return [StepFinishedEvent(step_name=sub.label)]

    def suspended(self, sub: Subagent, interrupt_ids: list[str]) -> list[Item]:
        return [StepFinishedEvent(step_name=sub.label)]

    def failed(self, sub: Subagent, message: str, code: str) -> list[Item]:
        status = CustomEvent(name=NODE_STATUS_EVENT, value={"node_id": sub.name, "status": "failed"})
        return [status, StepFinishedEvent(step_name=sub.label)]


SUBAGENTS = Lifecycle()
STEPS = StepLifecycle()
LIFECYCLES: dict[str, Lifecycle] = {"subagents": SUBAGENTS, "steps": STEPS}
"""``StrandsAgentConfig.multiagent_events`` -> the node lifecycle it chooses."""
