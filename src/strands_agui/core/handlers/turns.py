"""The end of a model turn: the ``message`` event (assistant: the turn ended; user: the tool batch ended),
and ``event_loop_throttled_delay`` (the attempt is retried)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..machine import AWAITING_RESULT
from .base import Handler, Item, Turn


class TurnHandler(Handler):
    """Turn boundaries: what the stream did not show is shown, then ``end_turn`` decides where the run goes."""

    def on_message(self, event: Mapping[str, Any]) -> list[Item]:
        message = event["message"]
        if not isinstance(message, Mapping):
            return []
        if message.get("role") == "assistant":
            return self.on_assistant_message(message)
        if message.get("role") == "user" and self.run.state == AWAITING_RESULT:
            return self.run.tools.on_tool_result_message(message)
        return []

    def on_assistant_message(self, message: Mapping[str, Any]) -> list[Item]:
        """Close what is open, show what the stream did not (unstreamed text or tool calls), end the turn."""
        run = self.run
        out = run.close_open("message")
        blocks = [b for b in message.get("content") or [] if isinstance(b, Mapping)]
        text = "".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
        if text and run.turn.text_message_id is None:
            out += run.text.on_text_delta({"data": text}) + run.close_open("message")
        for block in blocks:
            tool_use = block.get("toolUse")
            if isinstance(tool_use, Mapping) and tool_use.get("toolUseId") not in run.tools.calls:
                out += run.tools.show_unstreamed(tool_use)
        run.fire("end_turn", "message")
        run.turn = Turn()
        return out

    def on_throttle(self, event: Mapping[str, Any]) -> list[Item]:
        """A throttled attempt restarts the model stream: end what it showed so the retry starts afresh."""
        return self.run.close_open("event_loop_throttled_delay")
