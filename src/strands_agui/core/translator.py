"""One run's translator: Strands ``stream_async`` dicts in, AG-UI events out, every move checked by the machine.

The translator holds the run's state (the machine, the shared state, the messages the client holds, the
open envelope) and composes the handlers in ``handlers/``, one per concern. A Strands event is decoded once
into the part it is (``core/parts.py``), and the one dispatch table below (``parts``) says which handler consumes
which part. Every handler is synchronous and returns a list of *items*:
AG-UI events, or user hooks (:class:`HookCall`) the stream loop (``runtime/adapter.py``) runs in order before
it reads the next Strands event.

**Events before moves.** A handler computes a move's events first, then makes the move with them
(``fire(trigger, cause, events)`` returns them): a move that happened is in the translator's
``journal`` with its events, a move that did not happen has none there. When a handler raises half-way, the
stream loop sends what the journal holds (:meth:`Translator.committed`) and then fails the run, so the machine
and the wire never disagree: no END for a START that never left, no START left open by a lost END.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jsonpatch
from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    BaseEvent,
    CustomEvent,
    RawEvent,
    ReasoningEndEvent,
    ReasoningMessageEndEvent,
    RunAgentInput,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageEndEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
)

from ..config import StrandsAgentConfig, ToolCallContext
from ..errors import RunFailure
from .facts import NO_FACTS, RunFacts
from .handlers.background import BackgroundHandler
from .handlers.base import HookCall, Item, Turn, attributed, checked_ids, new_id
from .handlers.interrupts import InterruptHandler
from .handlers.outcome import OutcomeHandler
from .handlers.subagents import UNFINISHED, SubagentHandler
from .handlers.text import TextHandler
from .handlers.tools import ToolHandler
from .handlers.turns import TurnHandler
from .jsonsafe import raw_payload
from .machine import CANCELLED, CLOSERS, HALTED, IDLE, PAUSED, REASONING, RUN, STREAMING_TEXT, Machine, OnMove
from .parts import IGNORED, TWIN, UNMAPPED, decode
from .snapshot import ClientMessages
from .state_keys import STRANDS_STATE_KEYS

HOOK_ERROR_EVENT = "strands_agui.hook_error"

Handle = Callable[[Any], list[Item]]  # a part's handler, given its payload (``core/parts.decode``)


class Translator:
    """Per-run state: the machine, the shared state, the messages the client holds. Never shared between runs.

    ``facts`` are what the runtime learnt building the run's agent (``core/facts.py``); ``on_move`` sees every
    move of this machine and of its subagents' (``machine.Move``); ``initial`` is where the machine starts (a
    run whose start was sent before its facts were known starts where :class:`~.opening.RunOpening` left it)."""

    def __init__(self, input_data: RunAgentInput, config: StrandsAgentConfig | None = None,
                 facts: RunFacts = NO_FACTS, *, frontend_tools: frozenset[str] = frozenset(),
                 id_factory: Callable[[], str] = new_id, on_move: OnMove | None = None,
                 client: ClientMessages | None = None, owner: str | None = None, initial: str = IDLE,
                 journal: list[Item] | None = None, subagent: bool = False, machine: Machine | None = None) -> None:
        self.input = input_data
        self.config = config or StrandsAgentConfig()
        self.facts = facts
        self.frontend_tools = frontend_tools
        self.new_id = checked_ids(id_factory)  # a run's ids: unique non-empty strings, or IdFactoryError
        self.on_move = on_move
        self.shared_state: Any = initial_state(input_data.state)
        self.client = client or ClientMessages(input_data.messages)
        self.owner = owner  # a subagent's subagentRunId (None: the run itself, or a node in "steps" mode)
        self.turn = Turn()
        self.open_id = ""  # id of the open envelope (text/reasoning message or tool call)
        self.journal: list[Item] = [] if journal is None else journal  # the moves' events (shared with subagents)
        self.subagent = subagent  # a subagent's translator (``nested``), not the run's own
        self.hook_steps: set[str] = set()  # steps a custom_result_handler started and has not finished
        self.hook_activities: set[str] = set()  # activity messages a custom_result_handler started
        self.held_at_stop: list[Any] | None = None  # the client's messages when a Stop reached the run (``loop``)
        self.text = TextHandler(self)
        self.tools = ToolHandler(self)
        self.turns = TurnHandler(self)
        self.interrupts = InterruptHandler(self)
        self.outcome = OutcomeHandler(self)
        self.subagents = SubagentHandler(self)
        self.background = BackgroundHandler(self)
        if facts.parked is not None:  # a resume: the parked batch's results attach to the cards the client holds
            self.tools.adopt_parked(facts.parked)
        # the run's table bound to this translator (it answers the guards); a run opened before its facts were known
        # continues the opening's machine (``RunOpening``), now committing into this run's journal
        self.machine = machine or RUN.bind(self, initial=initial)
        self.machine.model, self.machine.on_move, self.machine.commit = self, on_move, self._commit
        self._dispatch_tables()

    def _dispatch_tables(self) -> None:
        """The one dispatch table: each part kind (``core/parts.decode``: a Strands event decoded once) -> the
        handler of its payload; and the envelopes: the machine's closing trigger -> the events that close it."""
        subagents, outcome, text, tools, turns = self.subagents, self.outcome, self.text, self.tools, self.turns
        self.parts: dict[str, Handle] = {
            # raw model chunks (``event``): the model's own words, before Strands' typed twin of them
            "messageStart": turns.on_message_start,
            "toolUseStart": tools.on_tool_use_start,  # contentBlockStart.start.toolUse
            "text": text.on_text_delta,  # contentBlockDelta.delta.text, and so on
            "citation": text.on_citation,
            "reasoningContent": text.on_reasoning_content,
            "toolUse": tools.on_tool_input,
            "contentBlockStop": self.on_block_stop,
            "messageStop": outcome.on_message_stop,
            "metadata": outcome.on_metadata,
            # Strands' own events, by their only key
            "message": turns.on_message,
            "tool_interrupt_event": self.interrupts.on_tool_interrupt,
            "strands_agui_tool_inputs": tools.on_inputs_that_ran,  # runtime/building/ran_inputs.py
            "strands_agui_background_tasks": self.background.on_tasks,  # runtime/building/background_watch.py
            "structured_output": outcome.on_structured_output,
            "result": outcome.on_result,
            "event_loop_throttled_delay": turns.on_throttle,  # invocation_state merged into it
            # by their ``type``
            "tool_stream": subagents.on_tool_stream,
            "multiagent_node_start": subagents.on_node_start,
            "multiagent_node_stream": subagents.on_node_stream,
            "multiagent_node_stop": subagents.on_node_stop,
            "multiagent_handoff": subagents.on_handoff,
            "multiagent_node_cancel": subagents.on_node_cancel,
            "multiagent_node_interrupt": subagents.on_node_interrupt,
            # no AG-UI meaning: a typed twin (read from its raw chunk), a chunk or delta of no meaning, the rest
            TWIN: _nothing,
            IGNORED: _nothing,
            UNMAPPED: self.unmapped,
        }
        # the envelope's closing trigger (``machine.CLOSERS``: which one is the table's answer) -> its END events
        self.closers: dict[str, Callable[[], list[Item]]] = {
            "close_text": text.close_text_events,
            "close_reasoning": text.close_reasoning_events,
            "close_tool_call": tools.close_tool_call_events,
        }

    def nested(self, owner: str | None, name: str, facts: RunFacts) -> Translator:
        """The translator of a subagent invocation named ``name``: its own machine, this run's message mirror and
        ids. Tool behaviours and frontend tools belong to the run's own agent, so the subagent has none. Its
        moves reach this run's ``on_move`` under its name (a path below nested subagents)."""
        config = StrandsAgentConfig(multiagent_events=self.config.multiagent_events)
        return Translator(self.input, config, facts, id_factory=self.new_id, client=self.client, owner=owner,
                          on_move=_below(self.on_move, name), journal=self.journal, subagent=True)

    # -- the machine (``machine.RUN`` bound to this run): where the run is, what it may do, every move traced ---
    @property
    def state(self) -> str:
        return self.machine.state  # type: ignore[no-any-return]

    @property
    def halt(self) -> str | None:
        """Why the run halted (the ``halt`` of the row that took it to ``halted``), once it has."""
        return self.machine.halt

    def can(self, trigger: str) -> bool:
        """True when the table lets ``trigger`` fire from the current state (its guards aside)."""
        return self.machine.can(trigger)

    def goes_to(self, trigger: str) -> str:
        """Where ``trigger`` would move the run now (the table's rows and guards), without moving."""
        return self.machine.goes_to(trigger)  # type: ignore[no-any-return]

    def fire(self, trigger: str, cause: str, events: Sequence[Item] = ()) -> list[Item]:
        """Fire ``trigger`` with the ``events`` it sends (computed before: events before moves) and return them:
        committed to the journal (a subagent's attributed), then ``on_move`` sees (cause, trigger, new state).
        An illegal move raises ``MachineError`` and sends nothing."""
        return self.machine.fire(trigger, cause, events)

    def _commit(self, events: list[Item]) -> None:
        if self.owner is not None:
            attributed(events, self.owner)
        self.journal += events
        for item in events:  # the client's activity messages (a task's card, a tool's progress): what it holds
            if isinstance(item, ActivitySnapshotEvent | ActivityDeltaEvent):
                self.client.activity(item)

    def committed(self) -> list[BaseEvent]:
        """The events of the moves made since the journal was last cleared (the stream loop clears it before each
        Strands event): what the wire must carry when a handler raised before returning them."""
        return [item for item in self.journal if isinstance(item, BaseEvent)]

    def decline(self, trigger: str, cause: str) -> list[Item]:
        """An input the current state cannot take (``can(trigger)`` is False): set aside, never silently, as a
        declined move ``on_move`` sees. Returns no events."""
        self.machine.decline(trigger, cause)
        return []

    @property
    def halted(self) -> bool:
        return self.state == HALTED

    @property
    def cancelled(self) -> bool:
        """The run halted on a cancel (by id, or Strands reporting it cancelled): the table's halt reason."""
        return self.halt == CANCELLED

    @property
    def paused(self) -> bool:
        return self.state == PAUSED

    # -- lifecycle (the stream loop's entry points) ---------------------------------------------------
    def finish_run(self) -> list[Item]:
        return self.outcome.finish_run()

    def fail_run(self, failure: RunFailure) -> list[Item]:
        return self.outcome.fail_run(failure)

    def cancel(self) -> list[Item]:
        """Halt for a cancel by id (the ``cancel`` move); the run then finishes with outcome ``cancelled``."""
        return self.outcome.cancel()

    def close_open(self, cause: str) -> list[Item]:
        """The one place that closes whatever envelope is open: the closer the table names for this state
        (``machine.CLOSERS``), fired with the END events its handler computes first."""
        trigger = CLOSERS.get(self.state)
        return [] if trigger is None else self.fire(trigger, cause, self.closers[trigger]())

    def abort(self, failure: RunFailure, ending: Sequence[Item] | None = None) -> list[Item]:
        """The last resort when failing the run raised (twice): close what the machine holds open with bare END
        events (no handler code, nothing that can fail), end open subagents with their error, then ``fail`` with
        ``ending`` (RUN_ERROR of ``failure`` for the run; a subagent's own error event for a subagent)."""
        out: list[Item] = []
        for key, sub in list(self.subagents.open.items()):
            out += attributed(sub.translator.abort(failure, sub.lifecycle.failed(sub, failure.message, UNFINISHED)),
                              sub.translator.owner)
            del self.subagents.open[key]
        if self.state in CLOSERS:
            out += self.fire(CLOSERS[self.state], "error", bare_end(self.state, self.open_id, self.tools.calls))
        if not self.can("fail"):
            return out
        return out + self.fire("fail", "error", ending if ending is not None else self.outcome.failed_events(failure))

    # -- dispatch ---------------------------------------------------------------------------------------
    def handle(self, event: Mapping[str, Any]) -> list[Item]:
        """Translate one Strands event: decoded once into its part (``core/parts.py``), handled by that part's one
        handler (``parts``)."""
        kind, payload = decode(event)
        return self.parts[kind](payload)

    def unmapped(self, event: Mapping[str, Any]) -> list[Item]:
        """An event with no AG-UI meaning: RAW when ``raw_events`` is on. Typed counterparts of raw chunks
        (they carry ``delta``) are not passed through; invocation_state keys and live objects are stripped."""
        if not self.config.raw_events or "delta" in event or "event" in event:
            return []
        hidden = self.facts.state_keys | STRANDS_STATE_KEYS
        payload = raw_payload({k: v for k, v in event.items() if k not in hidden})
        return [RawEvent(event=payload, source="strands")] if payload else []

    def on_block_stop(self, stop: Mapping[str, Any]) -> list[Item]:
        return self.close_open("contentBlockStop")

    # -- what user hooks call back ----------------------------------------------------------------------
    def streamed_args(self, tool_use_id: str, chunk: str) -> ToolCallArgsEvent:
        return self.tools.streamed_args(tool_use_id, chunk)

    def merge_state(self, fragment: Mapping[str, Any]) -> StateSnapshotEvent:
        """Merge a hook's fragment into the shared state; the snapshot always carries the whole state."""
        base = self.shared_state if isinstance(self.shared_state, dict) else {}
        self.shared_state = {**base, **fragment}
        return StateSnapshotEvent(snapshot=self.shared_state)

    def track_state(self, event: BaseEvent) -> BaseEvent:
        """A handler's state event: the shared state follows it (jsonpatch for a delta), so it stays the client's;
        its activity messages are held as the client holds them."""
        self.client.activity(event)
        if isinstance(event, StateSnapshotEvent):
            self.shared_state = event.snapshot
        elif isinstance(event, StateDeltaEvent):
            patch = [op.model_dump(mode="json", by_alias=True, exclude_unset=True) for op in event.delta]
            self.shared_state = jsonpatch.apply_patch(self.shared_state, patch)
        return event

    def hook_failed(self, kind: str, exc: BaseException, context: ToolCallContext | None = None) -> CustomEvent:
        return hook_failed(kind, exc, context)


def _nothing(payload: Any) -> list[Item]:
    """A part of no AG-UI meaning: nothing to send."""
    return []


def hook_failed(kind: str, exc: BaseException, context: ToolCallContext | None = None) -> CustomEvent:
    """A failing user hook never ends the run: the client sees this event instead."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose message itself fails
        text = "(its message could not be read)"
    value: dict[str, Any] = {"hook": kind, "error": f"{type(exc).__name__}: {text}"}
    if context is not None:
        value.update(tool=context.tool_name, toolCallId=context.tool_use_id)
    return CustomEvent(name=HOOK_ERROR_EVENT, value=value)


def bare_end(state: str, open_id: str, calls: Mapping[str, Any]) -> list[Item]:
    """The END events of the envelope ``state`` holds, from its id alone (``Translator.abort``)."""
    if state == STREAMING_TEXT:
        return [TextMessageEndEvent(message_id=open_id)]
    if state == REASONING:
        return [ReasoningMessageEndEvent(message_id=open_id), ReasoningEndEvent(message_id=open_id)]
    record = calls.get(open_id)
    return [ToolCallEndEvent(tool_call_id=record.wire_id if record is not None else open_id)]


def initial_state(state: Any) -> Any:
    """The input's state as the run's shared state: without ``messages``."""
    if isinstance(state, Mapping):
        return {k: v for k, v in state.items() if k != "messages"}
    return state


def _below(on_move: OnMove | None, name: str) -> OnMove | None:
    """``on_move`` for a subagent named ``name``: its moves, and its own subagents', under its path."""
    if on_move is None:
        return None
    return lambda move: on_move(move._replace(path=f"{name}/{move.path}" if move.path else name))


__all__ = ["HOOK_ERROR_EVENT", "HookCall", "Item", "RunFacts", "Translator", "hook_failed", "new_id"]
