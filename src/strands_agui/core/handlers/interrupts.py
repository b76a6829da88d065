"""Strands interrupts: ``tool_interrupt_event`` kept for the paused run's outcome, and, on a resume, the
parked tool calls the client already holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ag_ui.core import AssistantMessage, Interrupt

from ..interrupts import to_agui
from .base import Handler, Item, parse_args
from .tools import ToolCallRecord

if TYPE_CHECKING:
    from ..translator import Translator


class InterruptHandler(Handler):
    """What the run waits for, by interrupt id."""

    def __init__(self, run: Translator) -> None:
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
        call_id = tool_use_id if tool_use_id in self.run.tools.calls else None
        for interrupt in payload.get("interrupts") or ():
            agui = to_agui(interrupt, call_id)
            self.waiting.setdefault(agui.id, agui)
        return []

    def adopt_parked_calls(self) -> None:
        """A resume: the client already holds the parked turn's tool calls (the last assistant message's
        unanswered calls), so their results attach to those cards instead of being announced again."""
        messages = self.run.input.messages
        answered = {getattr(m, "tool_call_id", None) for m in messages}
        for message in messages:
            if not isinstance(message, AssistantMessage):
                continue
            for call in message.tool_calls or ():
                if call.id not in answered:
                    self.run.tools.calls[call.id] = ToolCallRecord(
                        call.id, call.function.name, message.id, [], [call.function.arguments],
                        parse_args(call.function.arguments), answered=True)
