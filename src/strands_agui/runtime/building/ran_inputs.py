"""The input a tool really ran with, when a hook or an intervention's ``Transform`` changed it.

Strands runs a tool with ``BeforeToolCallEvent.tool_use`` as the hooks left it, but the client holds the
arguments the model streamed: it would show ``{"city": "Lisbon"}`` beside "Booked a flight to Porto". The run's
agent gets an ``AfterToolCallEvent`` hook that keeps each call's input as it ran, and the run's stream is given
one event of our own before the tool batch's result message, for the calls whose input differs from what the
model wrote (read from the assistant ``message`` as Strands yielded it, before its tools ran)::

    {"strands_agui_tool_inputs": {"<toolUseId>": <the input that ran>, ...}}

It is recorded with the run (a replay shows the same), and the translator shows it (``handlers/tools.py``:
``CUSTOM strands_agui.tool_input_transformed`` and the call's arguments in the next ``MESSAGES_SNAPSHOT``).
A run where nothing changed an input sees no such event.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

from strands import Agent
from strands.hooks import AfterToolCallEvent

KEY = "strands_agui_tool_inputs"


class RanInputs:
    """One run's record of the inputs its tools ran with."""

    def __init__(self) -> None:
        self.ran: dict[str, Any] = {}
        self.written: dict[str, str] = {}  # tool use id -> the model's input, as JSON

    def install(self, agent: Agent) -> None:
        agent.hooks.add_callback(AfterToolCallEvent, self._after_tool_call)

    def _after_tool_call(self, event: AfterToolCallEvent) -> None:
        tool_use = event.tool_use
        self.ran[str(tool_use.get("toolUseId"))] = copy.deepcopy(tool_use.get("input"))

    async def annotate(self, stream: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
        """``stream`` with the inputs that differ from the model's, just before each tool batch's results. The
        source is always closed with ``aclose()`` (as ``record_stream`` does), so closing this closes Strands'."""
        iterator = aiter(stream)
        try:
            async for event in iterator:  # every Strands event: the cheap tests first (a dict is a Mapping)
                if "message" in event and len(event) == 1 and (isinstance(event, dict) or isinstance(event, Mapping)):
                    message = event["message"]
                    if isinstance(message, Mapping):
                        changed = self._seen(message)
                        if changed:
                            yield {KEY: changed}
                yield event
        finally:
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()

    def _seen(self, message: Mapping[str, Any]) -> dict[str, Any]:
        blocks = [b for b in message.get("content") or () if isinstance(b, Mapping)]
        if message.get("role") == "assistant":
            for block in blocks:
                if isinstance(block.get("toolUse"), Mapping):
                    use = block["toolUse"]
                    self.written[str(use.get("toolUseId"))] = _json(use.get("input"))
            return {}
        changed = {}
        for block in blocks:
            result = block.get("toolResult")
            tool_use_id = str(result.get("toolUseId")) if isinstance(result, Mapping) else None
            if tool_use_id in self.ran and tool_use_id in self.written \
                    and _json(self.ran[tool_use_id]) != self.written[tool_use_id]:
                changed[tool_use_id] = self.ran[tool_use_id]
        return changed


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
