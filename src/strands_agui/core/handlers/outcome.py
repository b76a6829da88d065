"""Run start and end: RUN_STARTED (with the input's state), and the terminal RUN_FINISHED / RUN_ERROR.

``outcome()`` is the one place that decides what a finished run's ``outcome`` says, from the state the
machine ended in (``paused`` -> the interrupt outcome built by the interrupt handler).
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
)

from ...errors import RunFailure
from ..machine import PAUSED
from .base import Handler, Item


class OutcomeHandler(Handler):
    """The first and the last events of the run."""

    def start(self) -> list[Item]:
        run = self.run
        if run.input.resume:
            run.interrupts.adopt_parked_calls()
        run.fire("start_run", "run")
        out: list[Item] = [RunStartedEvent(thread_id=run.input.thread_id, run_id=run.input.run_id)]
        if run.input.state is not None:
            out.append(StateSnapshotEvent(snapshot=run.shared_state))
        if run.input.resume:  # names the parked tool calls in this run before their results arrive
            out.append(MessagesSnapshotEvent(messages=run.client.snapshot()))
        return out

    def finish_run(self) -> list[Item]:
        run = self.run
        out = run.close_open("finish")
        run.fire("finish", "finish")
        return [*out, RunFinishedEvent(thread_id=run.input.thread_id, run_id=run.input.run_id,
                                       outcome=self.outcome())]

    def outcome(self) -> Any:
        if self.run.state == PAUSED:
            return RunFinishedInterruptOutcome(interrupts=self.run.interrupts.pending())
        return None

    def fail_run(self, failure: RunFailure) -> list[Item]:
        run = self.run
        out = run.close_open("error")
        run.fire("fail", "error")
        return [*out, RunErrorEvent(message=failure.message, code=failure.code)]
