"""Run inspection for the console: the machine's trace and the replayable log, sent inside the run's own stream.

Off unless the server enables it (``add_strands_fastapi_endpoint(..., inspect=True)``; the examples server
does) **and** the request asks for it with ``forwardedProps: {"strandsAgui": {"inspect": true}}``. Then the
run carries two kinds of ``CUSTOM`` events, which any AG-UI client may ignore:

* ``strands_agui.trace``, ``value = {"steps": [...]}``, sent just before the AG-UI events the steps produced
  (the run's start step just after RUN_STARTED, which always comes first); a move no AG-UI event carries
  (``end_turn`` into ``awaiting_result``: the tools run next, and nothing is sent while they do) is sent at
  once, right after the Strands event that made it (``loop.translate``'s ``flush``), so the page shows the
  state the run is in while a tool runs, not the one before.
  A step is ``{"event": <Strands event, sanitized as in a log> | null, "transitions": [{"cause", "trigger",
  "state"}...]}``; ``event`` is null for the run's start and end (``cause`` ``run`` / ``finish`` / ``error``).
  The moves of subagents' own machines (a Swarm/Graph node, an agent used as a tool: a run one level down)
  are in ``"subagents": [{"subagent": <name, "a/b" below nested ones>, "cause", "trigger", "state"}...]``,
  present when there are any; ``transitions`` are the run's own machine only. An input the state could not
  take (a citation with no text open, tool arguments of no announced call ...) moves nothing but is a decision
  all the same: ``"declined": [{"subagent"?, "cause", "trigger", "state"}...]`` (``subagent`` for a subagent's),
  present when there are any (``core.translator.Translator.decline``).
  Every Strands event the run consumed has a step, in order, also when it moved nothing.
* ``strands_agui.log``, sent once, just before RUN_FINISHED / RUN_ERROR:
  ``value = {"log": "<the run's log, JSON Lines as runtime/recordings writes it>"}``, replayable with
  ``strands-agui replay``; ``{"log": null, "truncated": true, "bytes": N}`` when it exceeds ``max_log_bytes``.

The events are what Strands yielded (less live objects), so enable this only where the people who can reach
the endpoint may see them: a development server, never a public one.
"""

from __future__ import annotations

import io
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any

from ag_ui.core import BaseEvent, CustomEvent, RunAgentInput, RunErrorEvent, RunFinishedEvent

from ...core.machine import Move, OnMove
from ...runtime.adapter import StrandsAgent
from ...runtime.loop import Pace
from ...runtime.recordings import Recorder, sanitize_event

TRACE_EVENT = "strands_agui.trace"
LOG_EVENT = "strands_agui.log"
PROPS_KEY = "strandsAgui"
DEFAULT_MAX_LOG_BYTES = 4_000_000
_END_CAUSES = frozenset({"finish", "error"})

Transition = tuple[str, str, str]
SubMove = tuple[str, str, str, str]  # (subagent path, cause, trigger, state)


class Trace(list[Transition]):
    """The run's transitions, its subagents' (``subagents``) and the declined moves of both: the ``on_move``
    the run is given."""

    def __init__(self) -> None:
        super().__init__()
        self.subagents: list[SubMove] = []
        self.declined: list[SubMove] = []

    def __call__(self, move: Move) -> None:
        if move.declined:
            self.declined.append((move.path, move.cause, move.trigger, move.state))
        elif move.path:
            self.subagents.append((move.path, move.cause, move.trigger, move.state))
        else:
            self.append((move.cause, move.trigger, move.state))


def wants_inspection(input_data: RunAgentInput) -> bool:
    """True when the request says ``forwardedProps.strandsAgui.inspect == true``."""
    props = input_data.forwarded_props
    options = props.get(PROPS_KEY) if isinstance(props, Mapping) else None
    return isinstance(options, Mapping) and options.get("inspect") is True


class _StepRecorder(Recorder):
    """A recorder that also remembers, for each Strands event, where its moves start in the trace."""

    def __init__(self, sink: io.StringIO, input_data: RunAgentInput, trace: Trace) -> None:
        super().__init__(sink, input_data=input_data, metadata={"source": "console"})
        self.trace = trace
        self.events: list[tuple[dict[str, Any], int, int, int]] = []  # (sanitized event, len of each trace list)

    def event(self, event: Mapping[str, Any]) -> None:
        super().event(event)
        trace = self.trace
        self.events.append((sanitize_event(event), len(trace), len(trace.subagents), len(trace.declined)))


class _Steps:
    """Cuts the trace into steps: one per Strands event, plus event-less steps for the run's own moves.

    Steps are taken when an AG-UI event is about to be sent. By then the handler of the newest Strands event
    has returned (handlers are synchronous and return all their items at once), so its step is complete."""

    def __init__(self, recorder: _StepRecorder) -> None:
        self.recorder = recorder
        self.sent_events = 0  # Strands events already sent as steps
        self.sent_moves = 0  # transitions already sent
        self.sent_sub = 0  # subagents' transitions already sent
        self.sent_declined = 0  # declined moves already sent

    def moved(self) -> bool:
        """True when a move (the run's or a subagent's) was made that no step sent yet."""
        trace = self.recorder.trace
        return len(trace) > self.sent_moves or len(trace.subagents) > self.sent_sub

    def take(self) -> list[dict[str, Any]]:
        """The steps not sent yet, in order."""
        trace, events = self.recorder.trace, self.recorder.events
        steps: list[dict[str, Any]] = []
        while self.sent_events < len(events):
            event, start, sub_start, declined_start = events[self.sent_events]
            self._own_moves(steps, start, sub_start, declined_start)
            self.sent_events += 1
            end, sub_end, declined_end = events[self.sent_events][1:] if self.sent_events < len(events) else (
                len(trace), len(trace.subagents), len(trace.declined))
            moves = trace[start:end]
            own = next((i for i, (cause, _, _) in enumerate(moves) if cause in _END_CAUSES), len(moves))
            steps.append(_step(event, moves[:own], trace.subagents[sub_start:sub_end],
                               trace.declined[declined_start:declined_end]))
            self.sent_moves, self.sent_sub, self.sent_declined = start + own, sub_end, declined_end
        self._own_moves(steps, len(trace), len(trace.subagents), len(trace.declined))
        return steps

    def _own_moves(self, steps: list[dict[str, Any]], end: int, sub_end: int, declined_end: int) -> None:
        """An event-less step for the run's start or end moves not sent yet (those before ``end``)."""
        if self.sent_moves < end or self.sent_sub < sub_end or self.sent_declined < declined_end:
            trace = self.recorder.trace
            steps.append(_step(None, trace[self.sent_moves:end], trace.subagents[self.sent_sub:sub_end],
                               trace.declined[self.sent_declined:declined_end]))
            self.sent_moves, self.sent_sub, self.sent_declined = end, sub_end, declined_end


def _step(event: dict[str, Any] | None, moves: list[Transition], sub: list[SubMove],
          declined: list[SubMove]) -> dict[str, Any]:
    step: dict[str, Any] = {"event": event, "transitions": _moves(moves)}
    if sub:
        step["subagents"] = [{"subagent": name, "cause": cause, "trigger": trigger, "state": state}
                             for name, cause, trigger, state in sub]
    if declined:
        step["declined"] = [{**({"subagent": name} if name else {}), "cause": cause, "trigger": trigger,
                             "state": state} for name, cause, trigger, state in declined]
    return step


def _moves(trace: list[Transition]) -> list[dict[str, str]]:
    return [{"cause": cause, "trigger": trigger, "state": state} for cause, trigger, state in trace]


def _trace_event(steps: _Steps) -> CustomEvent | None:
    """The steps not sent yet as one trace event, or None when there are none."""
    pending = steps.take()
    return CustomEvent(name=TRACE_EVENT, value={"steps": pending}) if pending else None


async def inspected_run(agent: StrandsAgent, input_data: RunAgentInput, *,
                        max_log_bytes: int = DEFAULT_MAX_LOG_BYTES,
                        request: Any = None, pace: Pace | None = None,
                        principal: str | None = None, cancel: threading.Event | None = None,
                        on_move: OnMove | None = None) -> AsyncIterator[BaseEvent]:
    """``agent.run(input_data)`` with the trace and the log interleaved as CUSTOM events (module docstring);
    ``on_move`` (a run span's) sees the moves too."""
    trace = Trace()
    moves = trace if on_move is None else _both(trace, on_move)
    sink = io.StringIO()
    recorder = _StepRecorder(sink, input_data, trace)
    steps = _Steps(recorder)

    def flush() -> list[BaseEvent]:  # after a Strands event that sent nothing: its moves go out now
        trace_event = _trace_event(steps) if steps.moved() else None
        return [] if trace_event is None else [trace_event]

    # Closed with this generator (RunStream acloses it), so the run's own cleanup runs in this task.
    async with aclosing(agent.run(input_data, recorder=recorder, on_move=moves,  # type: ignore[type-var]
                                  request=request, pace=pace, principal=principal, cancel=cancel,
                                  flush=flush)) as events:
        first = await anext(events, None)
        if first is None:
            return
        yield first  # RUN_STARTED opens the stream; the start's own step follows it
        if (trace_event := _trace_event(steps)) is not None:
            yield trace_event
        async for event in events:
            if (trace_event := _trace_event(steps)) is not None:
                yield trace_event
            if isinstance(event, RunFinishedEvent | RunErrorEvent):
                recorder.close()
                yield _log_event(sink.getvalue(), max_log_bytes)
            yield event


def _both(first: OnMove, second: OnMove) -> OnMove:
    def both(move: Move) -> None:
        first(move)
        second(move)
    return both


def _log_event(log: str, max_log_bytes: int) -> CustomEvent:
    size = len(log.encode("utf-8"))
    if size > max_log_bytes:
        return CustomEvent(name=LOG_EVENT, value={"log": None, "truncated": True, "bytes": size})
    return CustomEvent(name=LOG_EVENT, value={"log": log})


__all__ = ["LOG_EVENT", "TRACE_EVENT", "inspected_run", "wants_inspection"]
