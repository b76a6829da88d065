"""Tool calls and their results: the raw ``contentBlockStart.toolUse`` and ``contentBlockDelta.toolUse``
chunks, the call's end, and the user ``message`` of ``toolResult``s that ends a tool batch.

A call is announced once (TOOL_CALL_START), its argument fragments streamed (TOOL_CALL_ARGS, or buffered for an
``args_streamer``), and ended when its block stops (TOOL_CALL_END, then the ``state_from_args`` hook). Arguments
cut off before they form JSON (``max_tokens``, a cancel) get the shortest suffix that closes them, sent as a
last TOOL_CALL_ARGS, and a ``strands_agui.tool_call_truncated`` CUSTOM event names the call and what the model
really sent. A batch's results become TOOL_CALL_RESULTs (their content encoded as upstream ``ag_ui_strands``
encodes it, ``results.wire_result``: compact JSON, a plain text as a JSON string), one MESSAGES_SNAPSHOT, then
the result hooks (their ``result_data`` parsed from the text as the tool returned it). The snapshot is what
carries a failed result's ``error`` and a media result's content parts (ImagePart, DocumentPart, VideoPart with
the base64 bytes) on the tool message: AG-UI 1.0 also allows parts on TOOL_CALL_RESULT, but ag-ui-validate 0.4.0
rejects them (AGUI504), and ToolCallResultEvent has no ``error``. Such a batch always gets
its snapshot, ``skip_messages_snapshot`` or not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    CustomEvent,
    MessagesSnapshotEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ...config import ToolBehavior, ToolCallContext, ToolResultContext
from ..results import complete_json, parse_result, result_content, result_text, wire_result
from .base import HookCall, Item, ToolCallRecord, parse_args
from .run import Handler, Run

TRUNCATED_EVENT = "strands_agui.tool_call_truncated"


class ToolHandler(Handler):
    """The tool-call envelopes of the run and the results of each tool batch."""

    def __init__(self, run: Run) -> None:
        super().__init__(run)
        self.calls: dict[str, ToolCallRecord] = {}
        self.batch: list[ToolResultContext] = []
        self.snapshot_only = False  # the batch holds what only a snapshot carries (an error, content parts)

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
        return self.announce(str(tool_use["toolUseId"]), str(tool_use.get("name", "")), "contentBlockStart")

    def on_tool_input(self, delta: Mapping[str, Any]) -> list[Item]:
        """A raw ``contentBlockDelta.delta.toolUse``: an argument fragment of the open call (some providers
        name the call in its first delta instead of a block start)."""
        run = self.run
        out: list[Item] = []
        if not isinstance(delta, Mapping):
            return out
        if not run.can("tool_args") and delta.get("toolUseId") and delta.get("name"):
            out = self.announce(str(delta["toolUseId"]), str(delta["name"]), "contentBlockDelta")
        fragment = delta.get("input", "")
        if not isinstance(fragment, str) or not fragment:
            return out
        if not run.can("tool_args"):  # a fragment of no announced call
            return out + run.decline("tool_args", "contentBlockDelta.toolUse")
        return out + self.args_fragment(run.open_id, fragment, "contentBlockDelta")

    def args_fragment(self, tool_use_id: str, fragment: str, cause: str) -> list[Item]:
        run = self.run
        out: list[Item] = []
        record = self.calls[tool_use_id]
        record.chunks.append(fragment)
        if run.config.behavior(record.name).args_streamer is None:
            record.shown.append(fragment)
            out.append(ToolCallArgsEvent(tool_call_id=record.wire_id, delta=fragment))
        return run.fire("tool_args", cause, out)

    def announce(self, tool_use_id: str, name: str, cause: str) -> list[Item]:
        run = self.run
        out = run.close_open(cause)
        parent = run.turn.text_message_id
        # Two subagents (or a provider that names calls after their tool) may reuse a Strands id: each call
        # the client sees still gets an id of its own, or the first card would be overwritten.
        wire_id = run.client.fresh_tool_call_id(tool_use_id)
        shown = run.client.open_tool_call(wire_id, name, parent, run.owner)
        record = self.calls[tool_use_id] = ToolCallRecord(tool_use_id, name, parent, shown, wire_id=wire_id)
        run.turn.tool_use_ids.append(tool_use_id)
        run.open_id = tool_use_id
        predicted = run.config.behavior(name).predict_state_payload()
        start: list[Item] = [CustomEvent(name="PredictState", value=predicted)] if predicted else []
        start.append(ToolCallStartEvent(tool_call_id=wire_id, tool_call_name=name,
                                        parent_message_id=record.parent_message_id))
        return out + run.fire("open_tool_call", cause, start)

    def show_unstreamed(self, tool_use: Mapping[str, Any]) -> list[Item]:
        """A call the model's final message holds but the stream never showed: announce, args, end."""
        out = self.announce(str(tool_use["toolUseId"]), str(tool_use.get("name", "")), "message")
        out += self.args_fragment(self.run.open_id, json.dumps(tool_use.get("input", {})), "message")
        return out + self.run.close_open("message")

    def close_tool_call_events(self) -> list[Item]:
        record = self.calls[self.run.open_id]
        out = self._complete_args(record)
        record.tool_input = parse_args(record.args)
        behavior = self.run.config.behavior(record.name)
        context = self.call_context(record)
        if behavior.args_streamer is not None:
            out.append(HookCall("args_streamer", behavior.args_streamer, context))
        out.append(ToolCallEndEvent(tool_call_id=record.wire_id))
        if behavior.state_from_args is not None:
            out.append(HookCall("state_from_args", behavior.state_from_args, context))
        return out

    def _complete_args(self, record: ToolCallRecord) -> list[Item]:
        """Arguments cut off mid-JSON: close them so the client can parse the call, and say it was cut off."""
        received = record.args
        suffix = complete_json(received) if received else ""
        if not suffix:
            return []
        record.chunks.append(suffix)
        out: list[Item] = [CustomEvent(name=TRUNCATED_EVENT, value={
            "toolCallId": record.wire_id, "toolCallName": record.name, "receivedArgs": received})]
        if self.run.config.behavior(record.name).args_streamer is None:
            record.shown.append(suffix)
            out.append(ToolCallArgsEvent(tool_call_id=record.wire_id, delta=suffix))
        return out

    def streamed_args(self, tool_use_id: str, chunk: str) -> ToolCallArgsEvent:
        """One chunk from an ``args_streamer``: part of ``close_tool_call``, emitted before its TOOL_CALL_END."""
        record = self.calls[tool_use_id]
        record.shown.append(chunk)
        return ToolCallArgsEvent(tool_call_id=record.wire_id, delta=chunk)

    def call_context(self, record: ToolCallRecord) -> ToolCallContext:
        return ToolCallContext(input_data=self.run.input, tool_name=record.name, tool_use_id=record.tool_use_id,
                               tool_input=record.tool_input, args_str=record.args or "{}")

    def pending(self) -> list[str]:
        """Frontend calls this run showed and did not answer: the client answers them in its next input."""
        return [r.wire_id for r in self.calls.values() if r.name in self.run.frontend_tools and not r.answered]

    def adopt_parked(self, parked: Iterable[str]) -> None:
        """A resume: the client already holds the parked turn's tool calls (``parked``, from the run facts: the
        unanswered calls of its messages, or a resumed Swarm/Graph node's), so their results attach to those
        cards instead of being announced again."""
        messages = self.run.input.messages
        answered = {getattr(m, "tool_call_id", None) for m in messages}
        wanted = set(parked)
        for message in messages:
            if not isinstance(message, AssistantMessage):
                continue
            for call in message.tool_calls or ():
                if call.id not in answered and call.id in wanted:
                    self.calls[call.id] = ToolCallRecord(
                        call.id, call.function.name, message.id, [], [call.function.arguments],
                        parse_args(call.function.arguments), answered=True)

    def retract(self, tool_use_ids: list[str], message_ids: Sequence[str] = ()) -> None:
        """Take these calls (and ``message_ids``) back from what the client holds, and forget the calls."""
        wire_ids = [self.calls[i].wire_id if i in self.calls else i for i in tool_use_ids]
        self.run.client.retract([*message_ids, *wire_ids])
        for tool_use_id in tool_use_ids:
            self.calls.pop(tool_use_id, None)

    # -- results --------------------------------------------------------------------------------------
    def on_inputs_that_ran(self, event: Mapping[str, Any]) -> list[Item]:
        """A hook (an intervention's ``Transform``) changed calls' input before they ran
        (``runtime/building/ran_inputs.py``): the client is told, and the batch's snapshot shows the input that ran."""
        out: list[Item] = []
        for tool_use_id, ran in (event.get("strands_agui_tool_inputs") or {}).items():
            record = self.calls.get(str(tool_use_id))
            if record is None:
                continue
            arguments = json.dumps(ran)
            out.append(CustomEvent(name="strands_agui.tool_input_transformed",
                                   value={"toolCallId": record.wire_id, "modelArgs": record.args, "args": arguments}))
            self.run.client.set_arguments(record.wire_id, arguments)
            self.snapshot_only = True
        return out

    def on_tool_result_message(self, message: Mapping[str, Any]) -> list[Item]:
        config = self.run.config
        results = [b["toolResult"] for b in message.get("content") or []
                   if isinstance(b, Mapping) and isinstance(b.get("toolResult"), Mapping)]
        texts = [result_text(r.get("content")) for r in results]
        ended = self.run.subagents.on_results(results, texts)  # agent-as-tool subagents end (their own moves)
        self.batch, self.snapshot_only = [], False
        out: list[Item] = []
        for result, text in zip(results, texts, strict=True):
            out += self._tool_result(result, text)
        skip = all(config.behavior(c.tool_name).skip_messages_snapshot for c in self.batch)
        if self.batch and (self.snapshot_only or not skip):
            out.append(MessagesSnapshotEvent(messages=self.run.client.snapshot()))
        for context in self.batch:
            out += _result_hooks(config.behavior(context.tool_name), context)
        return ended + self.run.fire("receive_results", "message", out)

    def _tool_result(self, result: Mapping[str, Any], text: str) -> list[Item]:
        """One result, ``text`` being :func:`result_text` of its content."""
        run = self.run
        record = self.calls.get(str(result.get("toolUseId")))
        if record is None or record.name in run.frontend_tools:
            return []  # a frontend tool's result comes from the client; an unannounced id has no card to fill
        wire = wire_result(result.get("content"))  # upstream's encoding: what a renderer written for it parses
        content = result_content(result.get("content"), wire)
        error = (text or "error") if result.get("status") == "error" else None
        self.snapshot_only |= error is not None or not isinstance(content, str)
        message_id = run.new_id()
        record.answered = True
        run.client.tool_result(message_id, record.wire_id, content, error, run.owner)
        context = ToolResultContext(**vars(self.call_context(record)), result_data=parse_result(text),
                                    message_id=record.parent_message_id or record.wire_id)
        self.batch.append(context)
        return [ToolCallResultEvent(message_id=message_id, tool_call_id=record.wire_id, content=wire,
                                    role="tool")]


def _result_hooks(behavior: ToolBehavior, context: ToolResultContext) -> list[Item]:
    out: list[Item] = []
    if behavior.state_from_result is not None:
        out.append(HookCall("state_from_result", behavior.state_from_result, context))
    if behavior.custom_result_handler is not None:
        out.append(HookCall("custom_result_handler", behavior.custom_result_handler, context))
    return out
