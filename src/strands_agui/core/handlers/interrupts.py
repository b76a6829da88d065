"""Strands interrupts: ``tool_interrupt_event`` (and a Swarm/Graph's ``multiagent_node_interrupt``, through
``subagents``) kept for the paused run's outcome. (A resume's parked calls are tool calls: ``tools.py``.)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ag_ui.core import Interrupt

from ..interrupt_map import to_agui
from .base import Item
from .run import Handler, Run


class InterruptHandler(Handler):
    """What the run waits for, by interrupt id (each with ``expiresAt`` from the run facts)."""

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self.waiting: dict[str, Interrupt] = {}

    def run_interrupted(self) -> bool:
        return bool(self.waiting)

    def pending(self) -> list[Interrupt]:
        return list(self.waiting.values())

    def on_tool_interrupt(self, event: Mapping[str, Any]) -> list[Item]:
        """A tool (or a BeforeToolCallEvent hook) asked for input: kept for the paused run's outcome."""
        payload = event["tool_interrupt_event"]
        if not isinstance(payload, Mapping):
            return []
        tool_use_id = str((payload.get("tool_use") or {}).get("toolUseId", ""))
        record = self.run.tools.calls.get(tool_use_id)
        self.wait_for(payload.get("interrupts") or (), record.wire_id if record is not None else None)
        return []

    def wait_for(self, interrupts: Iterable[Any], tool_call_id: str | None = None,
                 subagent_run_id: str | None = None) -> list[Interrupt]:
        """Keep Strands interrupts (live or recorded) for the outcome; returns their AG-UI form."""
        out = []
        for interrupt in interrupts:
            agui = to_agui(interrupt, tool_call_id, self.run.facts.confirmers)
            agui.subagent_run_id, agui.expires_at = subagent_run_id, self.run.facts.expires_at
            out.append(self.waiting.setdefault(agui.id, agui))
        return out
