"""Text and reasoning: the ``data`` / ``reasoningText`` deltas and ``reasoning_signature``.

One text message per model turn's text block (TEXT_MESSAGE_START / CONTENT / END); one reasoning message per
reasoning block (REASONING_START, REASONING_MESSAGE_*, REASONING_END), its signature sent as
REASONING_ENCRYPTED_VALUE when the block closes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui.core import (
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from ..machine import REASONING, STREAMING_TEXT
from .base import Handler, Item


class TextHandler(Handler):
    """The text and reasoning envelopes of the run."""

    text_sink: list[str]  # deltas of the open text message (shared with ClientMessages)
    reasoning_signature: str = ""

    def on_text_delta(self, event: Mapping[str, Any]) -> list[Item]:
        text = event["data"]
        if not isinstance(text, str) or not text:
            return []
        run = self.run
        out = self._open_text() if run.state != STREAMING_TEXT else []
        run.move("text_delta", "data")
        self.text_sink.append(text)
        out.append(TextMessageContentEvent(message_id=run.open_id, delta=text))
        return out

    def _open_text(self) -> list[Item]:
        run = self.run
        out = run.close_open("data")
        run.fire("open_text", "data")
        run.open_id = run.turn.text_message_id = run.new_id()
        self.text_sink = run.client.open_text(run.open_id)
        return [*out, TextMessageStartEvent(message_id=run.open_id, role="assistant")]

    def close_text_events(self) -> list[Item]:
        return [TextMessageEndEvent(message_id=self.run.open_id)]

    def on_reasoning_delta(self, event: Mapping[str, Any]) -> list[Item]:
        text = event["reasoningText"]
        if not isinstance(text, str) or not text:
            return []
        run = self.run
        out: list[Item] = []
        if run.state != REASONING:
            out = run.close_open("reasoningText")
            run.fire("open_reasoning", "reasoningText")
            run.open_id, self.reasoning_signature = run.new_id(), ""
            out += [ReasoningStartEvent(message_id=run.open_id),
                    ReasoningMessageStartEvent(message_id=run.open_id, role="reasoning")]
        run.move("reasoning_delta", "reasoningText")
        out.append(ReasoningMessageContentEvent(message_id=run.open_id, delta=text))
        return out

    def on_reasoning_signature(self, event: Mapping[str, Any]) -> list[Item]:
        if self.run.state == REASONING:
            self.reasoning_signature += str(event["reasoning_signature"])
        return []

    def close_reasoning_events(self) -> list[Item]:
        message_id = self.run.open_id
        out: list[Item] = [ReasoningMessageEndEvent(message_id=message_id)]
        if self.reasoning_signature:
            out.append(ReasoningEncryptedValueEvent(subtype="message", entity_id=message_id,
                                                    encrypted_value=self.reasoning_signature))
        return [*out, ReasoningEndEvent(message_id=message_id)]
