"""One run's translator: Strands ``stream_async`` dicts in, AG-UI events out, every move checked by the machine.

Handlers are named after the Strands input they consume (``on_text_delta``, ``on_tool_use_stream``,
``on_assistant_message``, ``on_tool_result_message`` ...). Each is synchronous and returns a list of *items*:
AG-UI events, or user hooks (:class:`HookCall`) the stream loop (``agent.py``) runs in order before it reads
the next Strands event.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    CustomEvent,
    Interrupt,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from transitions import MachineError

from ..config import StrandsAgentConfig, ToolBehavior, ToolCallContext, ToolResultContext
from ..errors import RunFailure
from .interrupts import to_agui
from .machine import CLOSERS, HALTED, INTERNAL_MOVES, PAUSED, build_machine
from .results import parse_result, result_text
from .snapshot import ClientMessages

HOOK_ERROR_EVENT = "strands_agui.hook_error"


@dataclass(frozen=True)
class HookCall:
    """A user hook to run between two Strands events: ``kind`` names the ToolBehavior field."""

    kind: str
    fn: Callable[..., Any]
    context: ToolCallContext


Item: TypeAlias = BaseEvent | HookCall


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


@dataclass
class Turn:
    """What one model turn has shown the client so far."""

    text_message_id: str | None = None
    tool_use_ids: list[str] = field(default_factory=list)


def new_id() -> str:
    return str(uuid.uuid4())


class Translator:
    """Per-run state: the machine, the shared state, the messages the client holds. Never shared between runs."""

    state: str  # set by transitions: the machine's current state
    trigger: Callable[[str], bool]  # set by transitions

    def __init__(self, input_data: RunAgentInput, config: StrandsAgentConfig | None = None, *,
                 frontend_tools: frozenset[str] = frozenset(), id_factory: Callable[[], str] = new_id,
                 trace: list[tuple[str, str, str]] | None = None) -> None:
        self.input = input_data
        self.config = config or StrandsAgentConfig()
        self.frontend_tools = frontend_tools
        self.new_id = id_factory
        self.trace = trace
        self.shared_state: Any = _initial_state(input_data.state)
        self.client = ClientMessages(input_data.messages)
        self.tool_calls: dict[str, ToolCallRecord] = {}
        self.turn = Turn()
        self.open_id = ""  # id of the open envelope (text/reasoning message or tool call)
        self.text_sink: list[str] = []  # deltas of the open text message (shared with ClientMessages)
        self.reasoning_signature = ""
        self.batch: list[ToolResultContext] = []
        self.interrupts: dict[str, Interrupt] = {}  # what the run waits for, by interrupt id
        self.machine = build_machine(self)
        self._dispatch: dict[str, Callable[[Mapping[str, Any]], list[Item]]] = {
            "data": self.on_text_delta, "reasoningText": self.on_reasoning_delta,
            "reasoning_signature": self.on_reasoning_signature, "message": self.on_message,
            "event_loop_throttled_delay": self.on_throttle, "tool_interrupt_event": self.on_tool_interrupt,
            "event": self.on_raw_chunk,
        }

    # -- the transition trace -------------------------------------------------------------------------
    def fire(self, trigger: str, cause: str) -> None:
        """Fire ``trigger``; record (cause, trigger, new state) when tracing."""
        self.trigger(trigger)
        if self.trace is not None:
            self.trace.append((cause, trigger, self.state))

    def move(self, trigger: str, cause: str) -> None:
        """An internal move (a delta): checked against the table without a dispatch through transitions."""
        if self.state not in INTERNAL_MOVES[trigger]:
            raise MachineError(f'"Can\'t trigger event {trigger} from state {self.state}!"')
        if self.trace is not None:
            self.trace.append((cause, trigger, self.state))

    # -- guards (named in the machine table) ----------------------------------------------------------
    def input_resumes(self) -> bool:
        return bool(self.input.resume)

    def run_interrupted(self) -> bool:
        return bool(self.interrupts)

    def turn_calls_frontend_tool(self) -> bool:
        return any(self._halts_on(self.tool_calls[i].name) for i in self.turn.tool_use_ids)

    def turn_calls_tools(self) -> bool:
        return bool(self.turn.tool_use_ids)

    def result_stops_streaming(self) -> bool:
        return any(self.config.behavior(ctx.tool_name).stop_streaming_after_result for ctx in self.batch)

    def _halts_on(self, tool_name: str) -> bool:
        return tool_name in self.frontend_tools and not self.config.behavior(tool_name).continue_after_frontend_call

    @property
    def halted(self) -> bool:
        return self.state == HALTED

    # -- lifecycle --------------------------------------------------------------------------------------
    def start(self) -> list[Item]:
        if self.input.resume:
            self._adopt_parked_calls()
        self.fire("start_run", "run")
        out: list[Item] = [RunStartedEvent(thread_id=self.input.thread_id, run_id=self.input.run_id)]
        if self.input.state is not None:
            out.append(StateSnapshotEvent(snapshot=self.shared_state))
        if self.input.resume:  # names the parked tool calls in this run before their results arrive
            out.append(MessagesSnapshotEvent(messages=self.client.snapshot()))
        return out

    def close_open(self, cause: str) -> list[Item]:
        """The one place that closes whatever envelope the current state says is open."""
        closer = CLOSERS.get(self.state)
        if closer is None:
            return []
        self.fire(closer, cause)
        return getattr(self, f"_{closer}_events")()

    def finish_run(self) -> list[Item]:
        out = self.close_open("finish")
        self.fire("finish", "finish")
        outcome = RunFinishedInterruptOutcome(interrupts=list(self.interrupts.values())) \
            if self.state == PAUSED else None
        return [*out, RunFinishedEvent(thread_id=self.input.thread_id, run_id=self.input.run_id, outcome=outcome)]

    def fail_run(self, failure: RunFailure) -> list[Item]:
        out = self.close_open("error")
        self.fire("fail", "error")
        return [*out, RunErrorEvent(message=failure.message, code=failure.code)]

    # -- dispatch ---------------------------------------------------------------------------------------
    def handle(self, event: Mapping[str, Any]) -> list[Item]:
        """Translate one Strands event. Keys are tested in the order strands-stream-events.md gives."""
        if event.get("type") == "tool_use_stream":
            return self.on_tool_use_stream(event)
        for key, handler in self._dispatch.items():
            if key in event:
                return handler(event)
        return []

    # -- text -------------------------------------------------------------------------------------------
    def on_text_delta(self, event: Mapping[str, Any]) -> list[Item]:
        text = event["data"]
        if not isinstance(text, str) or not text:
            return []
        out = self._open_text() if self.state != "streaming_text" else []
        self.move("text_delta", "data")
        self.text_sink.append(text)
        out.append(TextMessageContentEvent(message_id=self.open_id, delta=text))
        return out

    def _open_text(self) -> list[Item]:
        out = self.close_open("data")
        self.fire("open_text", "data")
        self.open_id = self.turn.text_message_id = self.new_id()
        self.text_sink = self.client.open_text(self.open_id)
        return [*out, TextMessageStartEvent(message_id=self.open_id, role="assistant")]

    def _close_text_events(self) -> list[Item]:
        return [TextMessageEndEvent(message_id=self.open_id)]

    # -- reasoning --------------------------------------------------------------------------------------
    def on_reasoning_delta(self, event: Mapping[str, Any]) -> list[Item]:
        text = event["reasoningText"]
        if not isinstance(text, str) or not text:
            return []
        out: list[Item] = []
        if self.state != "reasoning":
            out = self.close_open("reasoningText")
            self.fire("open_reasoning", "reasoningText")
            self.open_id, self.reasoning_signature = self.new_id(), ""
            out += [ReasoningStartEvent(message_id=self.open_id),
                    ReasoningMessageStartEvent(message_id=self.open_id, role="reasoning")]
        self.move("reasoning_delta", "reasoningText")
        out.append(ReasoningMessageContentEvent(message_id=self.open_id, delta=text))
        return out

    def on_reasoning_signature(self, event: Mapping[str, Any]) -> list[Item]:
        if self.state == "reasoning":
            self.reasoning_signature += str(event["reasoning_signature"])
        return []

    def _close_reasoning_events(self) -> list[Item]:
        out: list[Item] = [ReasoningMessageEndEvent(message_id=self.open_id)]
        if self.reasoning_signature:
            out.append(ReasoningEncryptedValueEvent(subtype="message", entity_id=self.open_id,
                                                    encrypted_value=self.reasoning_signature))
        return [*out, ReasoningEndEvent(message_id=self.open_id)]

    # -- tool calls -------------------------------------------------------------------------------------
    def on_raw_chunk(self, event: Mapping[str, Any]) -> list[Item]:
        chunk = event["event"]
        if not isinstance(chunk, Mapping):
            return []
        if "contentBlockStop" in chunk:
            return self.close_open("contentBlockStop")
        tool_use = (chunk.get("contentBlockStart") or {}).get("start", {}).get("toolUse")
        if tool_use:
            return self.announce_tool_call(tool_use["toolUseId"], tool_use["name"], "contentBlockStart")
        return []

    def on_tool_use_stream(self, event: Mapping[str, Any]) -> list[Item]:
        current = event["current_tool_use"]
        tool_use_id = current.get("toolUseId")
        out: list[Item] = []
        if tool_use_id not in self.tool_calls:
            out = self.announce_tool_call(tool_use_id, current.get("name", ""), "tool_use_stream")
        fragment = event.get("delta", {}).get("toolUse", {}).get("input", "")
        if not fragment or self.state != "in_tool_call" or self.open_id != tool_use_id:
            return out
        self.move("tool_args", "tool_use_stream")
        record = self.tool_calls[tool_use_id]
        record.chunks.append(fragment)
        if self.config.behavior(record.name).args_streamer is None:
            record.shown.append(fragment)
            out.append(ToolCallArgsEvent(tool_call_id=tool_use_id, delta=fragment))
        return out

    def announce_tool_call(self, tool_use_id: str, name: str, cause: str) -> list[Item]:
        out = self.close_open(cause)
        self.fire("open_tool_call", cause)
        parent = self.turn.text_message_id
        shown = self.client.open_tool_call(tool_use_id, name, parent)
        record = self.tool_calls[tool_use_id] = ToolCallRecord(tool_use_id, name, parent, shown)
        self.turn.tool_use_ids.append(tool_use_id)
        self.open_id = tool_use_id
        predicted = self.config.behavior(name).predict_state_payload()
        if predicted:
            out.append(CustomEvent(name="PredictState", value=predicted))
        out.append(ToolCallStartEvent(tool_call_id=tool_use_id, tool_call_name=name,
                                      parent_message_id=record.parent_message_id))
        return out

    def _close_tool_call_events(self) -> list[Item]:
        record = self.tool_calls[self.open_id]
        record.tool_input = _parse_args(record.args)
        behavior = self.config.behavior(record.name)
        context = self._call_context(record)
        out: list[Item] = []
        if behavior.args_streamer is not None:
            out.append(HookCall("args_streamer", behavior.args_streamer, context))
        out.append(ToolCallEndEvent(tool_call_id=record.tool_use_id))
        if behavior.state_from_args is not None:
            out.append(HookCall("state_from_args", behavior.state_from_args, context))
        return out

    def streamed_args(self, tool_use_id: str, chunk: str) -> ToolCallArgsEvent:
        """One chunk from an ``args_streamer``: part of ``close_tool_call``, emitted before its TOOL_CALL_END."""
        self.tool_calls[tool_use_id].shown.append(chunk)
        return ToolCallArgsEvent(tool_call_id=tool_use_id, delta=chunk)

    def _call_context(self, record: ToolCallRecord) -> ToolCallContext:
        return ToolCallContext(input_data=self.input, tool_name=record.name, tool_use_id=record.tool_use_id,
                               tool_input=record.tool_input, args_str=record.args or "{}")

    # -- end of a model turn, tool results --------------------------------------------------------------
    def on_message(self, event: Mapping[str, Any]) -> list[Item]:
        message = event["message"]
        if not isinstance(message, Mapping):
            return []
        if message.get("role") == "assistant":
            return self.on_assistant_message(message)
        if message.get("role") == "user" and self.state == "awaiting_result":
            return self.on_tool_result_message(message)
        return []

    def on_assistant_message(self, message: Mapping[str, Any]) -> list[Item]:
        """Close what is open, show what the stream did not (unstreamed text or tool calls), end the turn."""
        out = self.close_open("message")
        blocks = [b for b in message.get("content") or [] if isinstance(b, Mapping)]
        text = "".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
        if text and self.turn.text_message_id is None:
            out += self.on_text_delta({"data": text}) + self.close_open("message")
        for block in blocks:
            tool_use = block.get("toolUse")
            if isinstance(tool_use, Mapping) and tool_use.get("toolUseId") not in self.tool_calls:
                out += self._replay_tool_call(tool_use)
        self.fire("end_turn", "message")
        self.turn = Turn()
        return out

    def _replay_tool_call(self, tool_use: Mapping[str, Any]) -> list[Item]:
        out = self.announce_tool_call(tool_use["toolUseId"], tool_use.get("name", ""), "message")
        args = json.dumps(tool_use.get("input", {}))
        out += self.on_tool_use_stream({"type": "tool_use_stream", "current_tool_use": tool_use,
                                        "delta": {"toolUse": {"input": args}}})
        return out + self.close_open("message")

    def on_tool_result_message(self, message: Mapping[str, Any]) -> list[Item]:
        results = [b["toolResult"] for b in message.get("content") or []
                   if isinstance(b, Mapping) and isinstance(b.get("toolResult"), Mapping)]
        out: list[Item] = []
        self.batch = []
        for result in results:
            out += self._tool_result(result)
        if self.batch and not all(self.config.behavior(c.tool_name).skip_messages_snapshot for c in self.batch):
            out.append(MessagesSnapshotEvent(messages=self.client.snapshot()))
        for context in self.batch:
            out += self._result_hooks(self.config.behavior(context.tool_name), context)
        self.fire("receive_results", "message")
        return out

    def _tool_result(self, result: Mapping[str, Any]) -> list[Item]:
        record = self.tool_calls.get(str(result.get("toolUseId")))
        if record is None or record.name in self.frontend_tools:
            return []  # a frontend tool's result comes from the client; an unannounced id has no card to fill
        content = result_text(result.get("content"))
        message_id = self.new_id()
        self.client.tool_result(message_id, record.tool_use_id, content)
        context = ToolResultContext(**vars(self._call_context(record)), result_data=parse_result(content),
                                    message_id=record.parent_message_id or record.tool_use_id)
        self.batch.append(context)
        return [ToolCallResultEvent(message_id=message_id, tool_call_id=record.tool_use_id, content=content,
                                    role="tool")]

    @staticmethod
    def _result_hooks(behavior: ToolBehavior, context: ToolResultContext) -> list[Item]:
        out: list[Item] = []
        if behavior.state_from_result is not None:
            out.append(HookCall("state_from_result", behavior.state_from_result, context))
        if behavior.custom_result_handler is not None:
            out.append(HookCall("custom_result_handler", behavior.custom_result_handler, context))
        return out

    # -- interrupts -------------------------------------------------------------------------------------
    def on_tool_interrupt(self, event: Mapping[str, Any]) -> list[Item]:
        """A tool (or a BeforeToolCallEvent hook) asked for input: kept for the paused run's outcome."""
        payload = event["tool_interrupt_event"]
        if not isinstance(payload, Mapping):
            return []
        tool_use_id = str((payload.get("tool_use") or {}).get("toolUseId", ""))
        call_id = tool_use_id if tool_use_id in self.tool_calls else None
        for interrupt in payload.get("interrupts") or ():
            agui = to_agui(interrupt, call_id)
            self.interrupts.setdefault(agui.id, agui)
        return []

    def _adopt_parked_calls(self) -> None:
        """A resume: the client already holds the parked turn's tool calls (the last assistant message's
        unanswered calls), so their results attach to those cards instead of being announced again."""
        answered = {getattr(m, "tool_call_id", None) for m in self.input.messages}
        for message in self.input.messages:
            if not isinstance(message, AssistantMessage):
                continue
            for call in message.tool_calls or ():
                if call.id not in answered:
                    self.tool_calls[call.id] = ToolCallRecord(
                        call.id, call.function.name, message.id, [], [call.function.arguments],
                        _parse_args(call.function.arguments))

    # -- retries ----------------------------------------------------------------------------------------
    def on_throttle(self, event: Mapping[str, Any]) -> list[Item]:
        """A throttled attempt restarts the model stream: end what it showed so the retry starts afresh."""
        return self.close_open("event_loop_throttled_delay")

    # -- shared state -----------------------------------------------------------------------------------
    def merge_state(self, fragment: Mapping[str, Any]) -> StateSnapshotEvent:
        """Merge a hook's fragment into the shared state; the snapshot always carries the whole state."""
        base = self.shared_state if isinstance(self.shared_state, dict) else {}
        self.shared_state = {**base, **fragment}
        return StateSnapshotEvent(snapshot=self.shared_state)

    def hook_failed(self, kind: str, exc: BaseException, context: ToolCallContext | None = None) -> CustomEvent:
        """A failing user hook never ends the run: the client sees this event instead."""
        value: dict[str, Any] = {"hook": kind, "error": f"{type(exc).__name__}: {exc}"}
        if context is not None:
            value.update(tool=context.tool_name, toolCallId=context.tool_use_id)
        return CustomEvent(name=HOOK_ERROR_EVENT, value=value)


def _initial_state(state: Any) -> Any:
    if isinstance(state, Mapping):
        return {k: v for k, v in state.items() if k != "messages"}
    return state


def _parse_args(args: str) -> Any:
    try:
        return json.loads(args) if args else {}
    except ValueError:
        return args
