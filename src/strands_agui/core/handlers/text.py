"""Text and reasoning, read from the model's own chunks (``contentBlockDelta.delta``): ``text``,
``citation``, ``reasoningContent.text`` / ``signature`` / ``redactedContent``.

The typed events Strands derives from these chunks (``data``, ``reasoningText`` ...) carry the caller's
``invocation_state`` merged in, so a user key named ``data`` would replace the model's text there; the raw
chunk is never merged, so it is the one place the text is read from.

One text message per text block (TEXT_MESSAGE_START / CONTENT / END); its citations go on its
TEXT_MESSAGE_END ``metadata.citations`` and on the message itself (``metadata.citations`` in the next
MESSAGES_SNAPSHOT). One reasoning message per reasoning block (REASONING_START, REASONING_MESSAGE_*,
REASONING_END); its signature, or the base64 of redacted reasoning, goes out as REASONING_ENCRYPTED_VALUE when
the block closes.
"""

from __future__ import annotations

import base64
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

from ..jsonsafe import stringified
from ..results import raw_bytes
from .base import Item
from .run import Handler


class TextHandler(Handler):
    """The text and reasoning envelopes of the run."""

    text_sink: list[str]  # deltas of the open text message (shared with ClientMessages)
    reasoning_signature: str = ""
    redacted: bytes = b""
    citations: list[Any]

    def on_text_delta(self, text: str) -> list[Item]:
        if not isinstance(text, str) or not text:
            return []
        run = self.run
        out = [] if run.can("text_delta") else self._open_text()
        self.text_sink.append(text)
        return out + run.fire("text_delta", "contentBlockDelta", [TextMessageContentEvent(message_id=run.open_id,
                                                                                          delta=text)])

    def show_text(self, text: str, cause: str) -> list[Item]:
        """Text the stream never showed (a provider that does not stream): one whole message."""
        return self.on_text_delta(text) + self.run.close_open(cause)

    def on_citation(self, citation: Any) -> list[Item]:
        """A citation of the open text block: kept for its TEXT_MESSAGE_END and the message's metadata (with no
        text open it has nothing to belong to: declined)."""
        if not self.run.can("text_delta"):
            return self.run.decline("text_delta", "contentBlockDelta.citation")
        self.citations.append(stringified(citation))
        return []

    def _open_text(self) -> list[Item]:
        run = self.run
        out = run.close_open("contentBlockDelta")
        message_id = run.new_id()
        run.open_id = message_id
        run.turn.message_ids.append(message_id)
        self.text_sink = run.client.open_text(message_id, run.owner)
        self.citations = []
        return out + run.fire("open_text", "contentBlockDelta", [TextMessageStartEvent(message_id=message_id,
                                                                                       role="assistant")])

    def close_text_events(self) -> list[Item]:
        message_id = self.run.open_id
        if not self.citations:
            return [TextMessageEndEvent(message_id=message_id)]
        self.run.client.set_metadata(message_id, {"citations": self.citations})
        self.run.turn.needs_snapshot = True
        return [TextMessageEndEvent(message_id=message_id, metadata={"citations": self.citations})]

    def on_reasoning_content(self, content: Mapping[str, Any]) -> list[Item]:
        """``reasoningContent``: a text delta, a piece of the signature, or redacted (encrypted) reasoning."""
        if not isinstance(content, Mapping):
            return []
        text, signature, redacted = content.get("text"), content.get("signature"), content.get("redactedContent")
        if isinstance(text, str) and text:
            return self._reasoning_delta(text)
        if signature:  # a piece of the open reasoning's signature (with none open: declined)
            if not self.run.can("reasoning_delta"):
                return self.run.decline("reasoning_delta", "contentBlockDelta.reasoningContent.signature")
            self.reasoning_signature += str(signature)
            return []
        if redacted:
            out = [] if self.run.can("reasoning_delta") else self._open_reasoning()
            self.redacted += _bytes(redacted)
            return out
        return []

    def _reasoning_delta(self, text: str) -> list[Item]:
        run = self.run
        out = [] if run.can("reasoning_delta") else self._open_reasoning()
        return out + run.fire("reasoning_delta", "contentBlockDelta",
                              [ReasoningMessageContentEvent(message_id=run.open_id, delta=text)])

    def _open_reasoning(self) -> list[Item]:
        run = self.run
        out = run.close_open("contentBlockDelta")
        message_id = run.new_id()
        run.open_id, self.reasoning_signature, self.redacted = message_id, "", b""
        return out + run.fire("open_reasoning", "contentBlockDelta", [
            ReasoningStartEvent(message_id=message_id),
            ReasoningMessageStartEvent(message_id=message_id, role="reasoning")])

    def close_reasoning_events(self) -> list[Item]:
        message_id = self.run.open_id
        out: list[Item] = [ReasoningMessageEndEvent(message_id=message_id)]
        secret = self.reasoning_signature or (base64.b64encode(self.redacted).decode("ascii") if self.redacted else "")
        if secret:
            out.append(ReasoningEncryptedValueEvent(subtype="message", entity_id=message_id, encrypted_value=secret))
        return [*out, ReasoningEndEvent(message_id=message_id)]


def _bytes(value: Any) -> bytes:
    """Redacted content: live bytes, a recorded log's ``__bytes_encoded__`` marker, else its text."""
    raw = raw_bytes(value)
    return str(value).encode() if raw is None else raw
