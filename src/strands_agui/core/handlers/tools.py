"""Tool calls and their results: ``contentBlockStart.toolUse``, ``tool_use_stream``, the call's end, and the
user ``message`` of ``toolResult``s that ends a tool batch.

A call is announced once (TOOL_CALL_START), its argument fragments streamed (TOOL_CALL_ARGS, or buffered for an
``args_streamer``), and ended when its block stops (TOOL_CALL_END, then the ``state_from_args`` hook). A batch's
results become TOOL_CALL_RESULTs, one MESSAGES_SNAPSHOT, then the result hooks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    CustomEvent,
    MessagesSnapshotEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ...config import ToolBehavior, ToolCallContext, ToolResultContext
from ..machine import IN_TOOL_CALL
from ..results import parse_result, result_text
from .base import Handler, HookCall, Item, parse_args

if TYPE_CHECKING:
    from ..translator import Translator


@dataclass
class ToolCallRecord:
    """A tool call as announced to the client; ``args`` grows while the input streams."""

    tool_use_id: str
    name: str
    parent_message_id: str | None
    shown: list[str]  # argument deltas the client has seen (shared with ClientMessages)
    chunks: list[str] = field(default_factory=list)  # argument fragments Strands streamed
    tool_input: Any = None

    @property
    def args(self) -> str:
        return "".join(self.chunks)


class ToolHandler(Handler):
    """The tool-call envelopes of the run and the results of each tool batch."""

    def __init__(self, run: Translator) -> None:
        super().__init__(run)
        self.calls: dict[str, ToolCallRecord] = {}
        self.batch: list[ToolResultContext] = []

    # -- guards ---------------------------------------------------------------------------------------
    def turn_calls_frontend_tool(self) -> bool:
        return any(self._halts_on(self.calls[i].name) for i in self.run.turn.tool_use_ids)

    def turn_calls_tools(self) -> bool:
        return bool(self.run.turn.tool_use_ids)

    def result_stops_streaming(self) -> bool:
        return any(self.run.config.behavior(ctx.tool_name).stop_streaming_after_result for ctx in self.batch)

    def _halts_on(self, tool_name: str) -> bool:
        run = self.run
        return tool_name in run.frontend_tools and not run.config.behavior(tool_name).continue_after_frontend_call

    # -- calls ----------------------------------------------------------------------------------------
    def on_tool_use_start(self, tool_use: Mapping[str, Any]) -> list[Item]:
        """A raw ``contentBlockStart.start.toolUse``: the call's name and id, before any argument."""
        return self.announce(tool_use["toolUseId"], tool_use["name"], "contentBlockStart")

    def on_tool_use_stream(self, event: Mapping[str, Any]) -> list[Item]:
        run = self.run
        current = event["current_tool_use"]
        tool_use_id = current.get("toolUseId")
        out: list[Item] = []
        if tool_use_id not in self.calls:
            out = self.announce(tool_use_id, current.get("name", ""), "tool_use_stream")
        fragment = event.get("delta", {}).get("toolUse", {}).get("input", "")
        if not fragment or run.state != IN_TOOL_CALL or run.open_id != tool_use_id:
            return out
        run.move("tool_args", "tool_use_stream")
        record = self.calls[tool_use_id]
        record.chunks.append(fragment)
        if run.config.behavior(record.name).args_streamer is None:
            record.shown.append(fragment)
            out.append(ToolCallArgsEvent(tool_call_id=tool_use_id, delta=fragment))
        return out

    def announce(self, tool_use_id: str, name: str, cause: str) -> list[Item]:
        run = self.run
        out = run.close_open(cause)
        run.fire("open_tool_call", cause)
        parent = run.turn.text_message_id
        shown = run.client.open_tool_call(tool_use_id, name, parent)
        record = self.calls[tool_use_id] = ToolCallRecord(tool_use_id, name, parent, shown)
        run.turn.tool_use_ids.append(tool_use_id)
        run.open_id = tool_use_id
        predicted = run.config.behavior(name).predict_state_payload()
        if predicted:
            out.append(CustomEvent(name="PredictState", value=predicted))
        out.append(ToolCallStartEvent(tool_call_id=tool_use_id, tool_call_name=name,
                                      parent_message_id=record.parent_message_id))
        return out

    def show_unstreamed(self, tool_use: Mapping[str, Any]) -> list[Item]:
        """A call the model's final message holds but the stream never showed: announce, args, end."""
        out = self.announce(tool_use["toolUseId"], tool_use.get("name", ""), "message")
        args = json.dumps(tool_use.get("input", {}))
        out += self.on_tool_use_stream({"type": "tool_use_stream", "current_tool_use": tool_use,
                                        "delta": {"toolUse": {"input": args}}})
        return out + self.run.close_open("message")

    def close_tool_call_events(self) -> list[Item]:
        record = self.calls[self.run.open_id]
        record.tool_input = parse_args(record.args)
        behavior = self.run.config.behavior(record.name)
        context = self.call_context(record)
        out: list[Item] = []
        if behavior.args_streamer is not None:
            out.append(HookCall("args_streamer", behavior.args_streamer, context))
        out.append(ToolCallEndEvent(tool_call_id=record.tool_use_id))
        if behavior.state_from_args is not None:
            out.append(HookCall("state_from_args", behavior.state_from_args, context))
        return out

    def streamed_args(self, tool_use_id: str, chunk: str) -> ToolCallArgsEvent:
        """One chunk from an ``args_streamer``: part of ``close_tool_call``, emitted before its TOOL_CALL_END."""
        self.calls[tool_use_id].shown.append(chunk)
        return ToolCallArgsEvent(tool_call_id=tool_use_id, delta=chunk)

    def call_context(self, record: ToolCallRecord) -> ToolCallContext:
        return ToolCallContext(input_data=self.run.input, tool_name=record.name, tool_use_id=record.tool_use_id,
                               tool_input=record.tool_input, args_str=record.args or "{}")

    # -- results --------------------------------------------------------------------------------------
    def on_tool_result_message(self, message: Mapping[str, Any]) -> list[Item]:
        config = self.run.config
        results = [b["toolResult"] for b in message.get("content") or []
                   if isinstance(b, Mapping) and isinstance(b.get("toolResult"), Mapping)]
        out: list[Item] = []
        self.batch = []
        for result in results:
            out += self._tool_result(result)
        if self.batch and not all(config.behavior(c.tool_name).skip_messages_snapshot for c in self.batch):
            out.append(MessagesSnapshotEvent(messages=self.run.client.snapshot()))
        for context in self.batch:
            out += _result_hooks(config.behavior(context.tool_name), context)
        self.run.fire("receive_results", "message")
        return out

    def _tool_result(self, result: Mapping[str, Any]) -> list[Item]:
        run = self.run
        record = self.calls.get(str(result.get("toolUseId")))
        if record is None or record.name in run.frontend_tools:
            return []  # a frontend tool's result comes from the client; an unannounced id has no card to fill
        content = result_text(result.get("content"))
        message_id = run.new_id()
        run.client.tool_result(message_id, record.tool_use_id, content)
        context = ToolResultContext(**vars(self.call_context(record)), result_data=parse_result(content),
                                    message_id=record.parent_message_id or record.tool_use_id)
        self.batch.append(context)
        return [ToolCallResultEvent(message_id=message_id, tool_call_id=record.tool_use_id, content=content,
                                    role="tool")]


def _result_hooks(behavior: ToolBehavior, context: ToolResultContext) -> list[Item]:
    out: list[Item] = []
    if behavior.state_from_result is not None:
        out.append(HookCall("state_from_result", behavior.state_from_result, context))
    if behavior.custom_result_handler is not None:
        out.append(HookCall("custom_result_handler", behavior.custom_result_handler, context))
    return out
