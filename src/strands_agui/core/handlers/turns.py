"""Model turns and attempts: the raw ``messageStart`` chunk (a model call begins), the ``message`` event
(assistant: the turn ended; user: the tool batch ended) and ``event_loop_throttled_delay``.

The client's transcript must equal what Strands keeps in its history:

* a model call that starts again before its turn ended (a throttle retry, an ``AfterModelCallEvent`` hook
  asking for a retry) abandons what the previous attempt showed: Strands keeps none of it, so it is retracted
  with a MESSAGES_SNAPSHOT without those messages and calls;
* the assistant ``message`` is what Strands keeps: a turn whose streamed text differs (a cancel replaces the
  partial text with ``"Cancelled by user"``) or whose streamed calls are missing from it is corrected the
  same way, and text or calls the stream never showed are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ag_ui.core import MessagesSnapshotEvent

from .base import Item, Turn
from .run import Handler


class TurnHandler(Handler):
    """Turn boundaries: correct what the client holds, then ``end_turn`` decides where the run goes."""

    def on_message_start(self, chunk: Mapping[str, Any]) -> list[Item]:
        """A model call begins: if the turn already showed something, that attempt was abandoned. On the resume
        of a checkpoint taken after its tools ran (nothing parked), the run goes on from there."""
        run = self.run
        if run.facts.parked is not None and not run.facts.parked and run.can("resume_checkpoint"):
            return run.fire("resume_checkpoint", "messageStart")
        return self.retract_attempt("messageStart")

    def on_throttle(self, event: Mapping[str, Any]) -> list[Item]:
        """A throttled attempt is retried: what it showed is retracted before the retry streams."""
        return self.retract_attempt("event_loop_throttled_delay")

    def retract_attempt(self, cause: str) -> list[Item]:
        run = self.run
        if not run.turn.shown:
            return []
        out = run.close_open(cause)
        run.tools.retract(run.turn.tool_use_ids, run.turn.message_ids)
        run.turn = Turn()
        return [*out, MessagesSnapshotEvent(messages=run.client.snapshot())]

    def on_message(self, event: Mapping[str, Any]) -> list[Item]:
        message = event["message"]
        if not isinstance(message, Mapping):
            return []
        if message.get("role") == "assistant":
            return self.on_assistant_message(message)
        if message.get("role") != "user":
            return []
        if not self.run.can("receive_results"):  # no tool batch is awaited: nothing for its results to answer
            return self.run.decline("receive_results", "message")
        return self.run.tools.on_tool_result_message(message)

    def on_assistant_message(self, message: Mapping[str, Any]) -> list[Item]:
        """Close what is open, make the turn on the client equal the message, end the turn."""
        run = self.run
        out = run.close_open("message")
        blocks = [b for b in message.get("content") or [] if isinstance(b, Mapping)]
        out += self._reconcile_text(_text_of(blocks))
        kept = {str(b["toolUse"].get("toolUseId")) for b in blocks if isinstance(b.get("toolUse"), Mapping)}
        dropped = [i for i in run.turn.tool_use_ids if i not in kept]
        if dropped:  # streamed, then not kept (a cancel mid-call)
            run.tools.retract(dropped)
            run.turn.tool_use_ids = [i for i in run.turn.tool_use_ids if i in kept]
            run.turn.needs_snapshot = True
        for block in blocks:
            tool_use = block.get("toolUse")
            if isinstance(tool_use, Mapping) and tool_use.get("toolUseId") not in run.tools.calls:
                out += run.tools.show_unstreamed(tool_use)
        corrected = [MessagesSnapshotEvent(messages=run.client.snapshot())] if run.turn.needs_snapshot else []
        out += run.fire("end_turn", "message", corrected)
        run.turn = Turn()
        return out

    def _reconcile_text(self, text: str) -> list[Item]:
        run, turn = self.run, self.run.turn
        if not turn.message_ids:
            return run.text.show_text(text, "message") if text else []
        if "".join(run.client.text_of(i) for i in turn.message_ids) == text:
            return []
        first, rest = turn.message_ids[0], turn.message_ids[1:]
        run.client.set_text(first, text)
        run.client.retract(rest)
        turn.message_ids = [first]
        turn.needs_snapshot = True
        return []


def _text_of(blocks: list[Mapping[str, Any]]) -> str:
    """The text Strands keeps for the turn: text blocks and the text of citation blocks, in order."""
    out: list[str] = []
    for block in blocks:
        if isinstance(block.get("text"), str):
            out.append(block["text"])
        cited = block.get("citationsContent")
        if isinstance(cited, Mapping):
            out += [c["text"] for c in cited.get("content") or () if isinstance(c, Mapping) and "text" in c]
    return "".join(out)
