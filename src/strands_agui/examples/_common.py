"""What the example scenarios share: reading a Strands (Converse-shaped) conversation, and serving an app.

A scenario is called with the whole conversation the model sees, e.g.::

    [{"role": "user", "content": [{"text": "weather in Paris"}]},
     {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {...}}}]},
     {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "success",
                                                  "content": [{"text": "{...}"}]}}]}]

so it either answers the newest user words or follows up on the tool results that end the conversation.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from strands_agui.core.results import parse_result, result_text
from strands_agui.tooling.scripted import ToolUse


@dataclass(frozen=True)
class ToolOutcome:
    """A tool result that ends the conversation, joined with the call it answers."""

    name: str
    input: Mapping[str, Any]
    data: Any  # the parsed result: JSON / Python literal, else the text
    text: str


def user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of the newest user message that has text (tool-result-only messages are skipped)."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        texts = [b["text"] for b in message.get("content") or [] if isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts).strip()
    return ""


def tool_outcomes(messages: Sequence[Mapping[str, Any]]) -> list[ToolOutcome]:
    """The tool results in the last message (empty when it is not a tool-result message), each with the
    name and input of the call it answers (found in the conversation's earlier ``toolUse`` blocks)."""
    if not messages:
        return []
    results = [b["toolResult"] for b in messages[-1].get("content") or [] if isinstance(b.get("toolResult"), Mapping)]
    if not results:
        return []
    calls: dict[str, Mapping[str, Any]] = {}
    for message in messages:
        for block in message.get("content") or []:
            use = block.get("toolUse")
            if isinstance(use, Mapping):
                calls[str(use.get("toolUseId"))] = use
    outcomes = []
    for result in results:
        call = calls.get(str(result.get("toolUseId")), {})
        text = result_text(result.get("content"))
        outcomes.append(ToolOutcome(name=str(call.get("name", "")), input=call.get("input") or {},
                                    data=parse_result(text), text=text))
    return outcomes


def call(name: str, tool_input: dict[str, Any]) -> ToolUse:
    """A scripted tool call with a fresh id (ids must not repeat across the runs of one thread)."""
    return ToolUse(name, tool_input, tool_use_id=f"tooluse_{uuid.uuid4().hex[:16]}")


def snippet(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut at a word boundary to about ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + "…"


def serve(app: Any) -> None:
    """Serve ``app`` with uvicorn on 127.0.0.1 (``HOST``/``PORT`` env override; port 8000 by default)."""
    import uvicorn

    uvicorn.run(app, host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "8000")))
