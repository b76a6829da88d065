"""Replay a recorded Strands log through the run machine: the same AG-UI events the live run produced.

A live run and the replay of its log go through the same loop (``StrandsAgent._run``) with the same
translator, configuration and input, so with the same id factory they yield identical events.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from typing import Any, TextIO

from ag_ui.core import BaseEvent, RunAgentInput

from ..config import StrandsAgentConfig
from ..core.machine import Move, OnMove
from ..core.translator import new_id
from ..runtime.adapter import StrandsAgent
from ..runtime.recordings import RecordedRun, read_log

LogSource = RecordedRun | str | os.PathLike[str] | TextIO


def load(log: LogSource, *, partial: bool = False) -> RecordedRun:
    """A recorded run from a path, an open file, or an already read log (``partial``: see :func:`read_log`)."""
    return log if isinstance(log, RecordedRun) else read_log(log, partial=partial)


async def replay(log: LogSource, *, config: StrandsAgentConfig | None = None,
                 input_data: RunAgentInput | None = None, id_factory: Callable[[], str] = new_id,
                 trace: list[tuple[str, str, str]] | None = None, partial: bool = False) -> AsyncIterator[BaseEvent]:
    """Yield the AG-UI events of a recorded run. ``input_data`` defaults to the log's header input; ``trace``
    collects ``(cause, trigger, state)`` of every move of the run's own machine.

    A log cut short (no end marker), empty or not a log raises ``LogFormatError`` before any event, unless
    ``partial`` is set: then whatever the log holds is replayed (a run that never finished ends when the log
    does)."""
    adapter = StrandsAgent(_no_agent, config=config, id_factory=id_factory)
    on_move = _own_moves(trace) if trace is not None else None
    async for event in adapter.replay(load(log, partial=partial), input_data=input_data, on_move=on_move):
        yield event


def _own_moves(trace: list[tuple[str, str, str]]) -> OnMove:
    """The ``on_move`` that keeps the moves the run's own machine took (not its subagents', not declined ones)."""

    def keep(move: Move) -> None:
        if not move.path and not move.declined:
            trace.append((move.cause, move.trigger, move.state))

    return keep


def replay_to_list(log: LogSource, **kwargs: Any) -> list[BaseEvent]:
    """Synchronous :func:`replay` for tests and scripts (runs its own event loop)."""

    async def collect() -> list[BaseEvent]:
        return [event async for event in replay(log, **kwargs)]

    return asyncio.run(collect())


def _no_agent(_: RunAgentInput) -> Any:
    raise RuntimeError("a replay never builds a Strands agent")
