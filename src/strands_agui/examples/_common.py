"""What the example scenarios share: reading a Strands (Converse-shaped) conversation, and serving an app.

A scenario is called with the whole conversation the model sees, e.g.::

    [{"role": "user", "content": [{"text": "weather in Paris"}]},
     {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {...}}}]},
     {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "success",
                                                  "content": [{"text": "{...}"}]}}]}]

so it either answers the newest user words or follows up on the tool results that end the conversation.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from strands.models import Model
from strands.types.content import Messages

from strands_agui import ToolUse, Turn, model_from_env

Scenario = Callable[[Messages], Turn]
"""A scripted model's script: the whole conversation in, the model's next turn out."""


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


def result_text(content: Any) -> str:
    """The text of a ``toolResult.content`` list: its text blocks, its JSON blocks dumped."""
    if not isinstance(content, list):
        return "" if content is None else str(content)
    parts = [b["text"] if isinstance(b.get("text"), str) else json.dumps(b["json"]) if "json" in b else ""
             for b in content if isinstance(b, Mapping)]
    return "\n".join(part for part in parts if part)


def parse_result(text: str) -> Any:
    """A result's value: JSON, then a Python literal (a tool returning a dict), else the text itself."""
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return text


def environment(env: Mapping[str, str] | None) -> Mapping[str, str]:
    """What an example's ``build_agent(env=...)`` reads: ``env``, else the process's environment."""
    return os.environ if env is None else env


def model(scenario: Scenario, env: Mapping[str, str] | None) -> Model:
    """The example's model: ``scenario`` on the scripted model unless ``env`` (default ``os.environ``) names a
    real one in ``STRANDS_AGUI_MODEL``."""
    return model_from_env(scenario, env=environment(env))


def call(name: str, tool_input: dict[str, Any]) -> ToolUse:
    """A scripted tool call with a fresh id (ids must not repeat across the runs of one thread)."""
    return ToolUse(name, tool_input, tool_use_id=f"tooluse_{uuid.uuid4().hex[:16]}")


def snippet(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut at a word boundary to about ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + "…"


def serve(app: Any, argv: Sequence[str] | None = None) -> None:
    """Serve ``app`` with uvicorn: ``--host`` / ``--port`` (``HOST`` / ``PORT`` in the environment; 127.0.0.1:8000
    by default); ``--help`` says so and serves nothing."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    parser = argparse.ArgumentParser(
        prog=f"python -m {spec.name}" if spec else None,
        description=(getattr(main, "__doc__", None) or "").strip().split("\n\n")[0] or None,
        epilog="Without STRANDS_AGUI_MODEL the example runs on a scripted model: no key, no network.")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"), help="address (default %(default)s)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")),
                        help="port (default %(default)s)")
    options = parser.parse_args(argv)
    import uvicorn

    uvicorn.run(app, host=options.host, port=options.port)
