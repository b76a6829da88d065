"""A run's opening: RUN_STARTED goes on the wire before the run's agent is built, its translator after; both
read the run's plan (``core/plan.py``).

The first events of a run need nothing Strands reports (:func:`run_started`), while the translator
needs the run facts the runtime learns only by building the agent (``core/facts.py``). So a run is opened in
two steps: :class:`RunOpening` fires ``start_run`` (the table's only way out of ``idle``) and gives the first
events, holding no handler state; :meth:`RunOpening.translator` then builds the run's translator from the facts,
its machine continuing from where the opening left it.
"""

from __future__ import annotations

from collections.abc import Callable

from ag_ui.core import BaseEvent, MessagesSnapshotEvent, RunAgentInput, RunStartedEvent, StateSnapshotEvent

from ..config import StrandsAgentConfig
from ..errors import RunFailure, adapter_failure
from .facts import NO_FACTS, RunFacts
from .handlers.base import checked_ids
from .machine import RUN, OnMove
from .plan import RunPlan
from .results import UNANSWERED
from .snapshot import ClientMessages
from .translator import Translator, initial_state


class RunOpening:
    """One run before its facts are known: the start move, the first events, then the translator factory."""

    def __init__(self, plan: RunPlan, config: StrandsAgentConfig, *, id_factory: Callable[[], str],
                 on_move: OnMove | None = None) -> None:
        self.plan = plan  # the run prepared (``core/plan.py``): read, never derived again
        self.input = plan.input
        self.config = config
        self.id_factory = checked_ids(id_factory)  # shared with the translator: one run, one set of ids
        self.failure: RunFailure | None = None  # the first events could not be built (``start``)
        self.client = ClientMessages(plan.input.messages)  # what the client holds, handed to the translator
        self.facts = NO_FACTS.of_run(plan.parked)  # what is known before the agent: a resume's parked calls
        # the run's table, bound to the opening until the translator takes it over (``translator``): the guard of
        # ``start_run`` (``input_resumes``) is the table's, asked of these facts as it is of a translator's
        self.machine = RUN.bind(self, on_move=on_move)

    def start(self) -> list[BaseEvent]:
        """Fire ``start_run`` and return the run's first events (computed first: events before moves). When they
        cannot be built (the id factory failed), the run still starts, with RUN_STARTED alone, and ``failure``
        says why it must end at once (as it does when ``on_move`` raises)."""
        try:
            events = run_started(self.input, self.client, self.id_factory)
        except Exception as exc:  # noqa: BLE001 - the run reports it after its RUN_STARTED
            self.failure = adapter_failure(exc)
            events = [RunStartedEvent(thread_id=self.input.thread_id, run_id=self.input.run_id,
                                      parent_run_id=self.input.parent_run_id)]
        try:
            self.machine.fire("start_run", "run", events)
        except Exception as exc:  # noqa: BLE001 - on_move raised: the move is made, its events leave, then RUN_ERROR
            self.failure = self.failure or adapter_failure(exc)
        return events

    def translator(self, facts: RunFacts) -> Translator:
        """The run's translator, given the facts (a resume's parked calls added from the plan)."""
        return Translator(self.input, self.config, facts.of_run(self.plan.parked),
                          frontend_tools=self.plan.frontend_tools,
                          id_factory=self.id_factory, on_move=self.machine.on_move, client=self.client,
                          machine=self.machine)


def run_started(input_data: RunAgentInput, client: ClientMessages, new_id: Callable[[], str]) -> list[BaseEvent]:
    """The run's first events, which need nothing Strands reports: RUN_STARTED (``parentRunId``), the input's
    state (without ``messages``), and what the client holds on a resume (it names the parked tool calls in this
    run before their results arrive) or when a new message abandoned tool calls (their error results)."""
    out: list[BaseEvent] = [RunStartedEvent(thread_id=input_data.thread_id, run_id=input_data.run_id,
                                            parent_run_id=input_data.parent_run_id)]
    if input_data.state is not None:
        out.append(StateSnapshotEvent(snapshot=initial_state(input_data.state)))
    if input_data.resume or client.answer_unanswered(new_id, UNANSWERED):
        out.append(MessagesSnapshotEvent(messages=client.snapshot()))
    return out
