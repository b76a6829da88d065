"""Recorded Strands runs fed to one translator an event at a time, for unit tests of single handlers.

The events are those of ``tests/fixtures`` (recorded from real ``strands.Agent`` runs on the scripted model,
see ``tests/support/record_fixtures.py``), read as a replay reads them: a handler under test is handed what a real run
handed it, at the point of the run where it was handed it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput

from strands_agui import RecordedRun, StrandsAgent, StrandsAgentConfig, read_log
from strands_agui.core.facts import RunFacts
from strands_agui.core.machine import Move
from strands_agui.core.translator import Item, Translator
from tests.support.replays import FIXTURES
from tests.support.scenarios import BY_NAME, pinned_ids


def recorded(name: str) -> RecordedRun:
    """The recording ``tests/fixtures/<name>.jsonl`` (``hitl/...`` for the interrupt runs)."""
    return read_log(FIXTURES / f"{name}.jsonl")


class Stepper:
    """One recorded run's translator, fed the recording's events on demand (``moves``: every move it made)."""

    def __init__(self, log: RecordedRun | str, config: StrandsAgentConfig | None = None,
                 input_data: RunAgentInput | None = None) -> None:
        self.log = recorded(log) if isinstance(log, str) else log
        if config is None and isinstance(log, str) and log in BY_NAME:
            config = BY_NAME[log].config
        data = input_data or self.log.input_data
        assert data is not None
        self.moves: list[Move] = []
        opening = StrandsAgent(lambda _: None, config=config, id_factory=pinned_ids()).opening(  # type: ignore[arg-type,return-value]
            data, self.moves.append)
        self.started = opening.start()
        self.translator: Translator = opening.translator(RunFacts.from_record(self.log.metadata))
        self._events: Iterator[Mapping[str, Any]] = _decoded(self.log)

    def until(self, wanted: Callable[[Mapping[str, Any]], bool]) -> Mapping[str, Any]:
        """Translate the recording up to the first event ``wanted`` accepts, and return that event unhandled."""
        for event in self._events:
            if wanted(event):
                return event
            self.translator.handle(event)
        raise AssertionError("the recording has no such event")

    def rest(self) -> list[Item]:
        """Translate the rest of the recording until the machine halts, as the stream loop does; the items."""
        out: list[Item] = []
        for event in self._events:
            if self.translator.halted:
                break
            out += self.translator.handle(event)
        return out

    def declined(self) -> list[Move]:
        return [move for move in self.moves if move.declined]


def chunk(key: str) -> Callable[[Mapping[str, Any]], bool]:
    """Accepts a raw model chunk holding ``key`` (``contentBlockDelta``, ``messageStart`` ...)."""
    return lambda event: isinstance(event.get("event"), Mapping) and key in event["event"]


def delta(key: str) -> Callable[[Mapping[str, Any]], bool]:
    """Accepts a raw ``contentBlockDelta`` whose delta holds ``key`` (``text``, ``toolUse``, ``citation`` ...)."""
    return lambda event: chunk("contentBlockDelta")(event) and key in event["event"]["contentBlockDelta"]["delta"]


def only(key: str) -> Callable[[Mapping[str, Any]], bool]:
    """Accepts an event whose only key is ``key`` (``message``, ``result``, ``tool_interrupt_event`` ...)."""
    return lambda event: set(event) == {key}


def of_type(kind: str) -> Callable[[Mapping[str, Any]], bool]:
    """Accepts an event of ``type`` ``kind`` (``multiagent_node_start``, ``tool_stream`` ...)."""
    return lambda event: event.get("type") == kind


def types(items: list[Item]) -> list[str]:
    """The AG-UI event types of ``items`` (a hook call by its kind)."""
    return [item.type.value if isinstance(item, BaseEvent) else f"hook:{item.kind}" for item in items]


def _decoded(log: RecordedRun) -> Iterator[Mapping[str, Any]]:
    """The recording's events as a replay hands them to the translator: a fresh copy of each, in order."""
    return (json.loads(json.dumps(event)) for event in log.events)
