"""The agents tests serve: scripted models (no key, no network) and runs of fixed events."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from strands import Agent

from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.tooling.scripted import ScriptedModel, Text


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message["role"] == "user":
            texts = [block["text"] for block in message["content"] if "text" in block]
            if texts:
                return "".join(texts)
    return ""


def echo_model(delay: float = 0.0, words: int = 0) -> ScriptedModel:
    """Answers ``echo <last user text>`` plus ``words`` filler words, one chunk per word."""
    filler = "".join(f" w{i}" for i in range(words))
    return ScriptedModel(lambda messages: [Text(f"echo {last_user_text(messages)}{filler}")], delay=delay)


def strands_agent(model: ScriptedModel, tools: list[Any] | None = None, **kwargs: Any) -> StrandsAgent:
    return StrandsAgent(Agent(model=model, tools=tools or [], callback_handler=None), name="test_agent", **kwargs)


class ScriptedRun(StrandsAgent):
    """A StrandsAgent whose run is a fixed list of events (then optionally an exception)."""

    def __init__(self, events: list[BaseEvent], error: Exception | None = None) -> None:
        super().__init__(Agent(model=ScriptedModel([]), callback_handler=None))
        self.events, self.error, self.closed = events, error, threading.Event()

    async def run(self, input_data: RunAgentInput, **_: Any) -> AsyncIterator[BaseEvent]:  # type: ignore[override]
        try:
            for event in self.events:
                yield event
            if self.error is not None:
                raise self.error
        finally:
            self.closed.set()
