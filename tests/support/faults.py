"""Fault injection (issue 27): generated runs and configurations of a real ``strands.Agent`` on a scripted model,
served through the real ``RunDriver`` and SSE framing, with one fault at a random point: a handler, the message
mirror, the translator's dispatch or moves, the encoder, or a user callable (id factory, hooks, ``on_move``,
``state_context_builder``) that raises or returns junk, and tools that raise. Every stream must still be valid:
RUN_STARTED first, exactly one terminal event last, a documented ``RUN_ERROR`` code, ag-ui-validate clean, both
official client generations accept it (checked together at the end), and Strands is closed without
OpenTelemetry's "Failed to detach context".

``tests/runtime/test_fault_injection.py`` runs a bounded number of cases in ``make test``; ``make fuzz``
(``tests/support/fuzz.py --faults N``) runs more.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    RunAgentInput,
    StateDeltaEvent,
    StepFinishedEvent,
    StepStartedEvent,
)
from hypothesis import strategies as st
from strands import Agent, tool

from strands_agui import PredictStateMapping, StrandsAgent, StrandsAgentConfig, ToolBehavior
from strands_agui.core.handlers.outcome import OutcomeHandler
from strands_agui.core.handlers.subagents import SubagentHandler
from strands_agui.core.handlers.text import TextHandler
from strands_agui.core.handlers.tools import ToolHandler
from strands_agui.core.handlers.turns import TurnHandler
from strands_agui.core.snapshot import ClientMessages
from strands_agui.core.translator import Translator
from strands_agui.errors import ERROR_CODES
from strands_agui.server.transport import driver as driver_module
from strands_agui.server.transport.driver import RunDriver
from strands_agui.server.transport.streaming import sse_frame
from strands_agui.tooling.scripted import Cancel, Fail, Reasoning, ScriptedModel, Text, ToolUse
from tests.support.wire import parse_sse

DETACH = "Failed to detach context"


class InjectedFault(RuntimeError):
    """The fault a test injects (never raised by the code under test)."""


# -- where a fault can land: (class, method) patched to raise on its n-th call --------------------------------

POINTS: dict[str, tuple[type, str]] = {
    "text.open": (TextHandler, "_open_text"),
    "text.delta": (TextHandler, "on_text_delta"),
    "text.close": (TextHandler, "close_text_events"),
    "reasoning.open": (TextHandler, "_open_reasoning"),
    "reasoning.close": (TextHandler, "close_reasoning_events"),
    "tools.announce": (ToolHandler, "announce"),
    "tools.args": (ToolHandler, "args_fragment"),
    "tools.close": (ToolHandler, "close_tool_call_events"),
    "tools.results": (ToolHandler, "on_tool_result_message"),
    "tools.result": (ToolHandler, "_tool_result"),
    "turns.start": (TurnHandler, "on_message_start"),
    "turns.message": (TurnHandler, "on_assistant_message"),
    "outcome.metadata": (OutcomeHandler, "on_metadata"),
    "outcome.result": (OutcomeHandler, "on_result"),
    "outcome.finish": (OutcomeHandler, "finish_run"),
    "outcome.fail": (OutcomeHandler, "fail_run"),
    "subagents.stream": (SubagentHandler, "on_tool_stream"),
    "subagents.results": (SubagentHandler, "on_results"),
    "subagents.node_start": (SubagentHandler, "on_node_start"),
    "subagents.node_stream": (SubagentHandler, "on_node_stream"),
    "subagents.node_stop": (SubagentHandler, "on_node_stop"),
    "subagents.end": (SubagentHandler, "_end"),
    "translator.handle": (Translator, "handle"),
    "translator.fire": (Translator, "fire"),
    "translator.close_open": (Translator, "close_open"),
    "mirror.open_text": (ClientMessages, "open_text"),
    "mirror.open_tool_call": (ClientMessages, "open_tool_call"),
    "mirror.tool_result": (ClientMessages, "tool_result"),
    "mirror.snapshot": (ClientMessages, "snapshot"),
}
ENCODER = "encoder"
NO_FAULT = "none"
ALL_POINTS = (*POINTS, ENCODER, NO_FAULT)


@contextlib.contextmanager
def fault_at(point: str, nth: int) -> Iterator[list[int]]:
    """Make ``point`` raise :class:`InjectedFault` on its ``nth`` call (once); yields ``[calls]``."""
    calls = [0]
    if point not in POINTS:
        yield calls
        return
    owner, name = POINTS[point]
    original = owner.__dict__[name]

    def faulty(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == nth:
            raise InjectedFault(f"injected into {point} (call {nth})")
        return original(*args, **kwargs)

    setattr(owner, name, faulty)
    try:
        yield calls
    finally:
        setattr(owner, name, original)


# -- tools, agents, user callables ------------------------------------------------------------------------------

@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


@tool
def broken(city: str) -> str:
    """A tool that raises."""
    raise RuntimeError(f"no data for {city}")


def researcher() -> Any:
    """An agent called as a tool (its run is a subagent)."""
    helper = Agent(name="researcher", description="Finds facts", callback_handler=None, tools=[lookup],
                   model=ScriptedModel([[Text("Looking."), ToolUse("lookup", {"city": "Oslo"})], [Text("Found.")]]))
    return helper.as_tool()


def failing_at(nth: int, make: Callable[[], Any], junk: Any = None, *, raises: bool = True) -> Callable[..., Any]:
    """A callable returning ``make()``, except at its ``nth`` call: it raises, or returns ``junk``."""
    counter = itertools.count(1)

    def call(*_: Any, **__: Any) -> Any:
        if next(counter) == nth:
            if raises:
                raise InjectedFault(f"user callable failed at call {nth}")
            return junk
        return make()
    return call


async def good_streamer(ctx: Any) -> AsyncIterator[str]:
    text = ctx.args_str
    for i in range(0, len(text), 4):
        yield text[i:i + 4]


async def partial_streamer(ctx: Any) -> AsyncIterator[str]:
    yield ctx.args_str[: max(1, len(ctx.args_str) // 2)]


async def junk_streamer(_: Any) -> AsyncIterator[str]:
    yield "city=Paris"


async def raising_streamer(ctx: Any) -> AsyncIterator[str]:
    yield ctx.args_str[:2]
    raise InjectedFault("args_streamer failed")


async def good_handler(_: Any) -> AsyncIterator[Any]:
    yield StepStartedEvent(step_name="render")
    yield StateDeltaEvent(delta=[{"op": "add", "path": "/rendered", "value": True}])
    yield StepFinishedEvent(step_name="render")


async def step_alone_handler(_: Any) -> AsyncIterator[Any]:
    yield StepFinishedEvent(step_name="never started")


async def open_step_handler(_: Any) -> AsyncIterator[Any]:
    yield StepStartedEvent(step_name="left open")


async def junk_handler(_: Any) -> AsyncIterator[Any]:
    yield {"type": "TEXT_MESSAGE_START"}


async def raising_handler(_: Any) -> AsyncIterator[Any]:
    yield StateDeltaEvent(delta=[{"op": "add", "path": "/x", "value": 1}])
    raise InjectedFault("custom_result_handler failed")


STREAMERS = {"none": None, "good": good_streamer, "partial": partial_streamer, "junk": junk_streamer,
             "raising": raising_streamer}
HANDLERS = {"none": None, "good": good_handler, "step_alone": step_alone_handler, "open_step": open_step_handler,
            "junk": junk_handler, "raising": raising_handler}
def raising_state(_: Any) -> Any:
    raise InjectedFault("state hook failed")


STATE_HOOKS: dict[str, Callable[..., Any] | None] = {
    "none": None, "good": lambda ctx: {"seen": ctx.tool_name}, "junk": lambda ctx: ["not", "a", "dict"],
    "raising": raising_state}


# -- one generated case -----------------------------------------------------------------------------------------

@dataclass
class Case:
    """A generated run: the model's script, the configuration's callables and the fault."""

    turns: list[list[Any]]
    streamer: str = "none"
    handler: str = "none"
    state_from_args: str = "none"
    state_from_result: str = "none"
    stop_after_result: bool = False
    continue_after_frontend: bool = False
    predict: bool = False
    ids: str = "good"  # good | raising | none | constant
    ids_at: int = 1
    builder_raises: bool = False
    on_move_at: int = 0  # 0: none
    team: str = "agent"  # the run's source: one agent (the script above), or a Swarm/Graph of TEAMS
    steps: bool = False  # multiagent_events="steps"
    point: str = NO_FAULT
    nth: int = 1
    notes: list[str] = field(default_factory=list)

    def config(self) -> StrandsAgentConfig:
        behavior = ToolBehavior(
            args_streamer=STREAMERS[self.streamer], custom_result_handler=HANDLERS[self.handler],
            state_from_args=STATE_HOOKS[self.state_from_args], state_from_result=STATE_HOOKS[self.state_from_result],
            stop_streaming_after_result=self.stop_after_result,
            predict_state=PredictStateMapping(state_key="city", tool="lookup", tool_argument="city")
            if self.predict else None)
        builder = failing_at(1, str) if self.builder_raises else None
        return StrandsAgentConfig(tool_behaviors={
            "lookup": behavior, "ask": ToolBehavior(continue_after_frontend_call=self.continue_after_frontend)},
            state_context_builder=builder, multiagent_events="steps" if self.steps else "subagents")

    def source(self) -> Any:
        if self.team != "agent":
            return TEAMS[self.team]()
        return Agent(model=ScriptedModel(self.turns), tools=[lookup, broken, researcher()], callback_handler=None)

    def id_factory(self) -> Callable[[], Any]:
        counter = itertools.count()
        if self.ids == "constant":
            return lambda: "same-id"
        if self.ids in ("raising", "none"):
            return failing_at(self.ids_at, lambda: f"id-{next(counter)}", None, raises=self.ids == "raising")
        return lambda: f"id-{next(counter)}"


def _teams() -> dict[str, Callable[[], Any]]:
    from tests.support.multi_scenarios import graph, streaming_tool, swarm, swarm_cancelling_writer

    return {"swarm": swarm, "swarm_fails": lambda: swarm(writer_fails=True), "swarm_cancels": swarm_cancelling_writer,
            "graph": graph, "graph_fails": lambda: graph(fail=True), "streaming_tool": streaming_tool}


TEAMS = _teams()
STEP_KINDS = ("text", "reasoning", "lookup", "broken", "ask", "researcher", "cancel", "fail")


def _step(kind: str, n: int) -> Any:
    if kind == "text":
        return Text(f"word{n} more words here")
    if kind == "reasoning":
        return Reasoning(f"thinking {n}", signature="sig" if n % 2 else None)
    if kind in ("lookup", "broken", "ask"):
        return ToolUse(kind, {"city": f"City{n}"})
    if kind == "researcher":
        return ToolUse("researcher", {"input": "find it"})
    if kind == "cancel":
        return Cancel()
    return Fail(RuntimeError("model down"))


@st.composite
def cases(draw: st.DrawFn) -> Case:
    kinds = st.lists(st.sampled_from(STEP_KINDS), min_size=0, max_size=3)
    turns = [[_step(k, i) for i, k in enumerate(draw(kinds))] for _ in range(draw(st.integers(1, 3)))]
    turns.append([Text("All done.")])
    point = draw(st.sampled_from(ALL_POINTS))
    return Case(
        turns=turns, streamer=draw(st.sampled_from(list(STREAMERS))), handler=draw(st.sampled_from(list(HANDLERS))),
        state_from_args=draw(st.sampled_from(list(STATE_HOOKS))),
        state_from_result=draw(st.sampled_from(list(STATE_HOOKS))),
        stop_after_result=draw(st.booleans()), continue_after_frontend=draw(st.booleans()),
        predict=draw(st.booleans()), ids=draw(st.sampled_from(["good", "good", "good", "raising", "none", "constant"])),
        ids_at=draw(st.integers(1, 6)), builder_raises=draw(st.booleans()),
        on_move_at=draw(st.sampled_from([0, 0, 0, 1, 3, 6])),
        team=draw(st.sampled_from(["agent"] * 6 + list(TEAMS))), steps=draw(st.booleans()),
        point=point, nth=draw(st.integers(1, 6)))


INPUT = {"threadId": "t", "runId": "r", "messages": [{"id": "u1", "role": "user", "content": "go"}],
         "tools": [{"name": "ask", "description": "Ask the user", "parameters": {
             "type": "object", "properties": {"city": {"type": "string"}}}}]}


class _Sink:
    def __init__(self) -> None:
        self.body = bytearray()

    async def write(self, body: bytes) -> None:
        self.body += body

    async def gone(self) -> None:
        await asyncio.Event().wait()

    async def end(self) -> None:
        return None


class _Detach(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if DETACH in record.getMessage():
            self.seen.append(record.getMessage())


def serve(case: Case) -> list[dict[str, Any]]:
    """Run ``case`` through the real driver and SSE framing; the wire events."""
    adapter = StrandsAgent(case.source(), config=case.config(), id_factory=case.id_factory())
    on_move = failing_at(case.on_move_at, lambda: None) if case.on_move_at else None
    encoded = itertools.count(1)

    def encode(event: Any) -> bytes:
        if case.point == ENCODER and next(encoded) == case.nth:
            raise InjectedFault(f"injected into the encoder (event {case.nth})")
        return sse_frame(event)

    async def drive() -> bytes:
        sink = _Sink()
        run = adapter.run(RunAgentInput.model_validate(INPUT), on_move=on_move)
        driver = RunDriver(run, encode, sink, keepalive=30, coalesce=0, keepalive_frame=None)  # type: ignore[arg-type]
        await driver.drive()
        return bytes(sink.body)

    with fault_at(case.point, case.nth):
        body = asyncio.run(drive())
    events, _ = parse_sse(body)
    return events


def check(case: Case) -> list[dict[str, Any]]:
    """Serve ``case`` and assert what every stream must hold (the official clients are checked in a batch)."""
    from tests.oracles import check_ag_ui_validate

    detach = _Detach()
    otel = logging.getLogger("opentelemetry.context")
    otel_level = otel.level
    otel.setLevel(logging.ERROR)  # seen whatever the root logger's level
    otel.addHandler(detach)
    quiet = [logging.getLogger(name) for name in ("strands_agui", "strands", driver_module.__name__)]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.CRITICAL)  # the injected faults are logged with tracebacks: expected here
    try:
        events = serve(case)
    finally:
        otel.removeHandler(detach)
        otel.setLevel(otel_level)
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
    types = [event["type"] for event in events]
    assert types and types[0] == "RUN_STARTED", (case, types)
    assert types[-1] in ("RUN_FINISHED", "RUN_ERROR"), (case, types)
    assert types.count("RUN_FINISHED") + types.count("RUN_ERROR") == 1, (case, types)
    if types[-1] == "RUN_ERROR":
        assert events[-1]["code"] in ERROR_CODES, (case, events[-1])
    assert not detach.seen, (case, detach.seen)  # an encoder fault included (a run cut short in a streaming tool)
    check_ag_ui_validate(events)
    return events


def legacy_stream(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` as the server sends them to a client that declares no protocol version (``@ag-ui/client``
    0.0.59): each rewritten by ``server.transport.versions.legacy_event``."""
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    from strands_agui.server.transport.versions import legacy_event
    from strands_agui.tooling.testing import dump_events

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    return dump_events([legacy_event(adapter.validate_python(event)) for event in events])


def check_clients(streams: list[list[dict[str, Any]]]) -> None:
    """Both official client generations over ``streams`` (the 0.0.59 one reading them as the server sends them to
    it), in the oracles' long-lived ``--serve`` processes."""
    from tests.oracles import CURRENT, LEGACY, check_official_client_many

    check_official_client_many(streams, client=CURRENT)
    check_official_client_many([legacy_stream(stream) for stream in streams], client=LEGACY)
