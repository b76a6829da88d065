"""A deterministic Strands ``Model`` that plays a script: no network, no key.

It is a real ``strands.models.Model``: a ``strands.Agent`` built on it runs its real event loop, executes real
tools and yields the real ``stream_async`` events. Only the model's words are scripted. Tests record their
fixtures with it, and the no-key examples serve with it.

A script is either a list of turns (one per model call, in order) or a callable ``(messages) -> Turn`` that
decides from the conversation so far. A turn is a list of steps::

    ScriptedModel([
        [Text("Let me check."), ToolUse("get_weather", {"city": "Paris"})],
        [Text("It is sunny in Paris.")],
    ])
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from strands.models import Model
from strands.types.content import Messages
from strands.types.streaming import StreamEvent


@dataclass(frozen=True)
class Text:
    """Assistant text, streamed in ``chunks`` pieces (split on word boundaries)."""

    text: str
    chunks: int | None = None


@dataclass(frozen=True)
class ToolUse:
    """A tool call whose JSON input is streamed in ``chunks`` fragments (a fresh id unless one is given);
    ``cut`` streams only the first ``cut`` characters of it, as a model stopped by its token limit does."""

    name: str
    input: dict[str, Any]
    tool_use_id: str | None = None
    chunks: int = 3
    cut: int | None = None


@dataclass(frozen=True)
class Reasoning:
    """A reasoning block: its text, then an optional signature."""

    text: str
    signature: str | None = None


@dataclass(frozen=True)
class RedactedReasoning:
    """A reasoning block the provider redacted: only its opaque bytes are streamed."""

    data: bytes


@dataclass(frozen=True)
class Cited:
    """A text block with citations (streamed as text deltas, then one ``citation`` delta per citation)."""

    text: str
    citations: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Cancel:
    """Call ``agent.cancel()`` at this point, as a user's stop button would; the steps after it are still
    offered, and Strands stops reading them."""


@dataclass(frozen=True)
class Fail:
    """Raise ``error`` from the model stream at this point (after the steps before it were streamed)."""

    error: BaseException


Step: TypeAlias = Text | ToolUse | Reasoning | RedactedReasoning | Cited | Cancel | Fail
Turn: TypeAlias = Sequence[Step]
Script: TypeAlias = Sequence[Turn] | Callable[[Messages], Turn]


def split_text(text: str, chunks: int | None) -> list[str]:
    """Split ``text`` into about ``chunks`` pieces at word boundaries (every word when ``chunks`` is None)."""
    words = [w + " " for w in text.split(" ")]
    words[-1] = words[-1][:-1]
    words = [w for w in words if w]
    if not words:
        return []
    n = len(words) if chunks is None else max(1, min(chunks, len(words)))
    size = -(-len(words) // n)
    return ["".join(words[i : i + size]) for i in range(0, len(words), size)]


def split_even(text: str, chunks: int) -> list[str]:
    """Split ``text`` into ``chunks`` pieces of about equal length."""
    if not text:
        return []
    n = max(1, min(chunks, len(text)))
    size = -(-len(text) // n)
    return [text[i : i + size] for i in range(0, len(text), size)]


def turns_since_user_message(messages: Messages) -> int:
    """How many assistant turns answered the conversation's last user message (its tool results continue it)."""
    turns = 0
    for message in reversed(messages):
        content = message.get("content") or []
        if message.get("role") == "user" and not any("toolResult" in block for block in content):
            break
        turns += message.get("role") == "assistant"
    return turns


class ScriptedModel(Model):
    """Plays scripted turns as Bedrock-shaped ``StreamEvent`` chunks.

    ``delay`` seconds are awaited before each chunk (0 in tests; the served examples use a realistic pace).
    ``stop_reason`` overrides the stop reason of every turn (e.g. ``"max_tokens"``); ``usage`` adds to (or
    overrides) the usage every call reports (e.g. ``cacheReadInputTokens``).

    A list script is played once, across every call of the model (the model is shared by every run of a served
    agent, so a second request would get "(the script has no more turns)"). ``each_message=True`` chooses the
    turn from the conversation instead, as a real model answers: the first turn answers each user message, each
    next turn the tool results of the one before (a resume or a frontend tool's result continues it). So every
    message of every thread, in whichever request, gets the whole script: what serving your own agent keyless
    needs. A callable script (``(messages) -> Turn``; one with ``wants_tool_specs = True`` is called
    ``(messages, tool_specs)``) is always chosen from the conversation.
    """

    def __init__(self, script: Script, *, delay: float = 0.0, stop_reason: str | None = None,
                 usage: dict[str, int] | None = None, each_message: bool = False) -> None:
        self._script = script
        self._each_message = each_message
        self._delay = delay
        self._stop_reason = stop_reason
        self._usage = {"inputTokens": 10, "outputTokens": 10, "totalTokens": 20, **(usage or {})}
        self._calls = 0
        self.config: dict[str, Any] = {"model_id": "scripted"}

    @property
    def delay(self) -> float:
        """Seconds awaited before each streamed chunk."""
        return self._delay

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        return dict(self.config)

    def structured_output(self, output_model: Any, prompt: Messages, system_prompt: str | None = None,
                          **kwargs: Any) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError("ScriptedModel does not produce structured output")

    def next_turn(self, messages: Messages, tool_specs: Sequence[Any] | None = None) -> Turn:
        """The turn for this model call: the next scripted one, or the script callable's answer."""
        if callable(self._script):
            if getattr(self._script, "wants_tool_specs", False):
                return self._script(messages, list(tool_specs or ()))  # type: ignore[call-arg]
            return self._script(messages)
        position = turns_since_user_message(messages) if self._each_message else self._calls
        if position >= len(self._script):
            return [Text("(the script has no more turns)")]
        self._calls += 1
        return self._script[position]

    async def stream(self, messages: Messages, tool_specs: Any = None, system_prompt: str | None = None,
                     **kwargs: Any) -> AsyncIterable[StreamEvent]:
        turn = self.next_turn(messages, tool_specs)
        yield {"messageStart": {"role": "assistant"}}
        used_tools = False
        for index, step in enumerate(turn):
            if isinstance(step, Fail):
                raise step.error
            if isinstance(step, Cancel):
                kwargs["invocation_state"]["agent"].cancel()
                continue
            used_tools |= isinstance(step, ToolUse)
            for chunk in self._block(index, step):
                if self._delay:
                    await asyncio.sleep(self._delay)
                yield chunk
        stop = self._stop_reason or ("tool_use" if used_tools else "end_turn")
        yield {"messageStop": {"stopReason": stop}}  # type: ignore[typeddict-item]
        yield {"metadata": {"usage": dict(self._usage), "metrics": {"latencyMs": 1}}}  # type: ignore[typeddict-item]

    @staticmethod
    def _block(index: int, step: Step) -> list[StreamEvent]:
        start: dict[str, Any] = {}
        deltas: list[dict[str, Any]] = []
        if isinstance(step, Text):
            deltas = [{"text": piece} for piece in split_text(step.text, step.chunks)]
        elif isinstance(step, Reasoning):
            deltas = [{"reasoningContent": {"text": piece}} for piece in split_text(step.text, None)]
            if step.signature:
                deltas.append({"reasoningContent": {"signature": step.signature}})
        elif isinstance(step, RedactedReasoning):
            deltas = [{"reasoningContent": {"redactedContent": step.data}}]
        elif isinstance(step, Cited):
            deltas = [{"text": piece} for piece in split_text(step.text, None)]
            deltas += [{"citation": dict(citation)} for citation in step.citations]
        elif isinstance(step, ToolUse):
            tool_use_id = step.tool_use_id or f"tooluse_{uuid.uuid4().hex[:16]}"  # unique, as a model's are
            start = {"toolUse": {"name": step.name, "toolUseId": tool_use_id}}
            text = json.dumps(step.input)[: step.cut]
            deltas = [{"toolUse": {"input": piece}} for piece in split_even(text, step.chunks)]
        events: list[Any] = [{"contentBlockStart": {"contentBlockIndex": index, "start": start}}]
        events += [{"contentBlockDelta": {"contentBlockIndex": index, "delta": d}} for d in deltas]
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
        return events
