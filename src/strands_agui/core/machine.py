"""The run machine: every AG-UI lifecycle move of one run, as one table.

Read this file first. A *state* names the situation of the run on the wire; a *trigger* names the AG-UI move
that leaves it; a *guard* (``conditions``) is a question the translator answers from the Strands event at hand.
``dest=None`` is an internal move: the state stays, only events are emitted (a text delta, tool arguments).

Invariants the table enforces (a trigger fired from any other state raises ``MachineError``):

* ``RUN_STARTED`` is the first event (``start_run`` is the only way out of ``idle``), and exactly one of
  ``RUN_FINISHED`` (``finish``) / ``RUN_ERROR`` (``fail``) is the last: both lead to terminal states.
* At most one envelope is open: text, reasoning or a tool call. ``finish``, ``fail`` and ``end_turn`` are
  legal only when nothing is open, so the translator must close what is open first (``Translator.close_open``
  is the one place that does it, reading the current state).
* A turn that asked for a frontend tool ends in ``halted`` (unless ``continue_after_frontend_call``): Strands
  is not consumed again, so the tool is never executed server-side. A tool result whose behaviour says
  ``stop_streaming_after_result`` also halts; that is how text streaming stops after a decisive result.
* A run Strands stopped on interrupts (``tool_interrupt_event``) ends ``paused``: RUN_FINISHED with
  ``outcome: {type: "interrupt"}``. A resume starts in ``awaiting_result``: the parked tool batch's results
  are the first thing it shows.
* A run cancelled by id (``cancel``) halts like a frontend tool call, and ends RUN_FINISHED with ``outcome:
  cancelled``.
* A subagent (a Swarm/Graph node, an agent called as a tool) runs its own machine built from this same table,
  one level down (``core/handlers/subagents.py``); the run itself only records ``start_subagent`` / ``end_subagent``
  and ``tool_progress`` (activity messages) as internal moves, and ends every open subagent before it finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from transitions import MachineError

IDLE = "idle"
READY = "ready"
STREAMING_TEXT = "streaming_text"
REASONING = "reasoning"
IN_TOOL_CALL = "in_tool_call"
AWAITING_RESULT = "awaiting_result"
HALTED = "halted"
FINISHED = "finished"
PAUSED = "paused"
ERRORED = "errored"

STATES: tuple[str, ...] = (
    IDLE, READY, STREAMING_TEXT, REASONING, IN_TOOL_CALL, AWAITING_RESULT, HALTED, FINISHED, PAUSED, ERRORED,
)
TERMINAL_STATES = frozenset({FINISHED, PAUSED, ERRORED})

# Why a run halted (the ``halt`` of the row that took it to ``halted``).
FRONTEND_TOOL, STOP_AFTER_RESULT, CANCELLED = "frontend_tool", "stop_after_result", "cancelled"

TRANSITIONS: tuple[dict[str, Any], ...] = (
    # a resume (RunAgentInput.resume) continues the parked tool batch: its results come first
    {"trigger": "start_run", "source": IDLE, "dest": AWAITING_RESULT, "conditions": "input_resumes"},
    {"trigger": "start_run", "source": IDLE, "dest": READY},
    # text envelope: TEXT_MESSAGE_START / CONTENT / END
    {"trigger": "open_text", "source": READY, "dest": STREAMING_TEXT},
    {"trigger": "text_delta", "source": STREAMING_TEXT, "dest": None},
    {"trigger": "close_text", "source": STREAMING_TEXT, "dest": READY, "closes": True},
    # reasoning envelope: REASONING_START, REASONING_MESSAGE_START / CONTENT / END, REASONING_END
    {"trigger": "open_reasoning", "source": READY, "dest": REASONING},
    {"trigger": "reasoning_delta", "source": REASONING, "dest": None},
    {"trigger": "close_reasoning", "source": REASONING, "dest": READY, "closes": True},
    # tool-call envelope: TOOL_CALL_START / ARGS / END
    {"trigger": "open_tool_call", "source": READY, "dest": IN_TOOL_CALL},
    {"trigger": "tool_args", "source": IN_TOOL_CALL, "dest": None},
    # (with an args_streamer the arguments are buffered and its chunks go out as part of close_tool_call)
    {"trigger": "close_tool_call", "source": IN_TOOL_CALL, "dest": READY, "closes": True},
    # the model's turn ended (assistant message): halt for a frontend tool, wait for backend tools, or go on
    {"trigger": "end_turn", "source": READY, "dest": HALTED, "conditions": "turn_calls_frontend_tool",
     "halt": FRONTEND_TOOL},
    {"trigger": "end_turn", "source": READY, "dest": AWAITING_RESULT, "conditions": "turn_calls_tools"},
    {"trigger": "end_turn", "source": READY, "dest": None},
    # the tool batch finished (user message of toolResults)
    {"trigger": "receive_results", "source": AWAITING_RESULT, "dest": HALTED, "conditions": "result_stops_streaming",
     "halt": STOP_AFTER_RESULT},
    {"trigger": "receive_results", "source": AWAITING_RESULT, "dest": READY},
    # a resume of a checkpoint taken after the tools ran (Strands' "after_tools"): no tool batch is parked, the
    # next model call comes first (core/checkpoints.py)
    {"trigger": "resume_checkpoint", "source": AWAITING_RESULT, "dest": READY},
    # subagents (Swarm/Graph nodes, agents as tools) run their own machine from this table, one level down;
    # the run records their start and end, and tool progress (activity messages), as internal moves
    {"trigger": "start_subagent", "source": [READY, AWAITING_RESULT], "dest": None},
    {"trigger": "end_subagent", "source": [READY, AWAITING_RESULT, HALTED], "dest": None},
    {"trigger": "tool_progress", "source": AWAITING_RESULT, "dest": None},
    # a background task (Agent(background_tasks=...)) appeared, changed status or was delivered: its activity
    # message (core/handlers/background.py); seen at turn boundaries, so between envelopes
    {"trigger": "task_progress", "source": [READY, AWAITING_RESULT, HALTED], "dest": None},
    # a cancel by id (POST .../runs/{runId}/cancel) halts between envelopes: Strands is stopped its own way,
    # and the run finishes with outcome cancelled
    {"trigger": "cancel", "source": [READY, AWAITING_RESULT], "dest": HALTED, "halt": CANCELLED},
    # lifecycle end
    # a run Strands stopped on interrupts ends paused: RUN_FINISHED with the interrupt outcome
    {"trigger": "finish", "source": [READY, AWAITING_RESULT], "dest": PAUSED, "conditions": "run_interrupted"},
    # a Strands checkpoint (Agent(checkpointing=True), stop_reason "checkpoint") ends paused too: the interrupt
    # outcome names the checkpoint, and a resume continues from it (core/checkpoints.py)
    {"trigger": "finish", "source": [READY, AWAITING_RESULT], "dest": PAUSED, "conditions": "run_checkpointed"},
    {"trigger": "finish", "source": [READY, AWAITING_RESULT, HALTED], "dest": FINISHED},
    {"trigger": "fail", "source": [READY, AWAITING_RESULT, HALTED], "dest": ERRORED},
)


# What a row says besides its move: ``closes`` (the row closes the envelope its source state holds: the one
# closer of that state, see ``CLOSERS``) and ``halt`` (the row halts the run, and why: see ``HALT_REASONS``).
ROW_KEYS = ("trigger", "source", "dest", "conditions")


def sources(row: dict[str, Any]) -> list[Any]:
    """The source states of one table row."""
    src = row["source"]
    return list(src) if isinstance(src, list | tuple | frozenset | set) else [src]


def rows(table: Iterable[dict[str, Any]] = TRANSITIONS) -> list[dict[str, Any]]:
    """A table as ``transitions`` takes it (the moves only, without ``closes`` / ``halt``)."""
    return [{k: v for k, v in row.items() if k in ROW_KEYS} for row in table]


# Envelope state -> the trigger that closes it (rows marked ``closes``): what ``Translator.close_open`` fires.
# Each envelope state has exactly one closer, so which one runs is the table's answer, not an order.
CLOSERS: dict[str, str] = {state: row["trigger"] for row in TRANSITIONS if row.get("closes") for state in sources(row)}

# Trigger -> why it halts the run when it lands in ``halted`` (rows marked ``halt``): a frontend tool was called,
# a result's behaviour stops streaming, or the run was cancelled. The outcome reads it (``Translator.halt``).
HALT_REASONS: dict[str, str] = {row["trigger"]: row["halt"] for row in TRANSITIONS if "halt" in row}


# The guards, defined once: each question the table names, answered from the model a machine is bound to. The
# model is a run (``handlers/run.Run``: the translator) or its opening (``opening.RunOpening``): both hold the
# run's ``facts``; only the translator is ever asked the others (they guard moves made after the opening).
GUARDS: dict[str, Callable[[Any], bool]] = {
    "input_resumes": lambda run: run.facts.resumes,  # a resume continues its parked tool batch (``RunFacts``)
    "turn_calls_frontend_tool": lambda run: run.tools.turn_calls_frontend_tool(),
    "turn_calls_tools": lambda run: run.tools.turn_calls_tools(),
    "result_stops_streaming": lambda run: run.tools.result_stops_streaming(),
    "run_interrupted": lambda run: run.interrupts.run_interrupted(),
    # a Strands checkpoint ended the run's own turn (a subagent's is its parent's business)
    "run_checkpointed": lambda run: run.outcome.checkpoint is not None and not run.subagent,
}


class Move(NamedTuple):
    """One decision of a (sub)run's machine, as a trace sees it.

    ``path`` is "" for the run's own machine, else the subagent's name ("a/b" below nested subagents);
    ``state`` is the state after the move. A ``declined`` move was not taken: the input that asked for it
    (``cause``) came when the state could not take ``trigger``, so it was set aside (see ``Translator.decline``).
    """

    path: str
    cause: str
    trigger: str
    state: str
    declined: bool = False


OnMove = Callable[[Move], None]
"""What tracing is: one callback that sees every move of a run and of its subagents."""


class Table:
    """A state table: the one machine mechanism of the package. The run's moves (:data:`RUN`, from
    :data:`TRANSITIONS`) and a served run's phases (``server/transport/driver.DRIVER``) are each one ``Table``; a
    :class:`Machine` binds one to one model (the object its guards question) and holds the state. Rows are
    ``transitions``' own row format (``trigger``, ``source``, ``dest`` (None: stay), ``conditions``: a guard
    of ``guards``), so ``tooling/diagrams.py`` draws any table with ``transitions``' diagram engines; a row may
    say more (``closes``, ``halt``), which the table keeps. Rows of one trigger and source are tried in table
    order: the first whose guard answers True (or that has none) moves."""

    def __init__(self, name: str, states: Iterable[Any], rows: Iterable[dict[str, Any]], initial: Any,
                 guards: dict[str, Callable[[Any], bool]] | None = None) -> None:
        self.name, self.states, self.initial = name, tuple(states), initial
        self.rows = tuple(rows)
        self.guards = guards or {}
        moves: dict[tuple[Any, str], list[tuple[Callable[[Any], bool] | None, Any, str | None]]] = {}
        for row in self.rows:
            guard = self.guards[row["conditions"]] if "conditions" in row else None
            for source in sources(row):
                moves.setdefault((source, row["trigger"]), []).append((guard, row["dest"], row.get("halt")))
        self.moves = {key: tuple(options) for key, options in moves.items()}

    def bind(self, model: Any, *, initial: Any = None, on_move: OnMove | None = None,
             commit: Callable[[list[Any]], None] | None = None) -> Machine:
        """A machine of this table for ``model`` (asked the guards), starting at ``initial`` (the table's)."""
        return Machine(self, model, self.initial if initial is None else initial, on_move, commit)

    def triggers(self) -> tuple[str, ...]:
        """Every trigger name, in table order, without repeats."""
        return tuple(dict.fromkeys(row["trigger"] for row in self.rows))


class Machine:
    """One table bound to one model: where it is (``state``), why it halted (``halt``, a row's), and the moves.

    ``fire`` is its one verb: the move, with the events it sends (computed before: events before moves), handed
    to ``commit`` (the translator's journal) and then shown to ``on_move``.
    A move the table lacks from the current state raises ``MachineError`` and changes nothing."""

    __slots__ = ("commit", "halt", "model", "on_move", "state", "table")

    def __init__(self, table: Table, model: Any, initial: Any, on_move: OnMove | None = None,
                 commit: Callable[[list[Any]], None] | None = None) -> None:
        self.table, self.model, self.state = table, model, initial
        self.on_move, self.commit = on_move, commit
        self.halt: str | None = None

    def can(self, trigger: str) -> bool:
        """True when the table has a row firing ``trigger`` from the current state (guards aside)."""
        return (self.state, trigger) in self.table.moves

    def _row(self, trigger: str) -> tuple[Any, str | None]:
        """The destination (None: stay) and halt reason of the row ``trigger`` takes now (its guards asked)."""
        options = self.table.moves.get((self.state, trigger))
        if options is not None:
            for guard, dest, halt in options:
                if guard is None or guard(self.model):
                    return dest, halt
        raise MachineError(f"{self.table.name}: no move {trigger!r} from {getattr(self.state, 'value', self.state)!r}")

    def goes_to(self, trigger: str) -> Any:
        """The state ``trigger`` would move to now, without moving: what a handler asks to compute the events of
        a guarded move before making it (events before moves), instead of asking the guard's question again."""
        dest = self._row(trigger)[0]
        return self.state if dest is None else dest

    def fire(self, trigger: str, cause: str = "", events: Sequence[Any] = ()) -> list[Any]:
        """The one verb: move by ``trigger`` (the first row whose guard answers True), with the events the move
        sends (computed before: events before moves), committed, then the move shown to ``on_move``; returned
        (a machine with neither, the driver's phases, only moves)."""
        options = self.table.moves.get((self.state, trigger))
        if options is not None and len(options) == 1 and options[0][0] is None:  # the hot path: a delta
            dest, halt = options[0][1], options[0][2]
        else:
            dest, halt = self._row(trigger)
        if dest is not None:
            self.state = dest
        if halt is not None:
            self.halt = halt
        out = events if type(events) is list else list(events)
        if self.commit is not None:
            self.commit(out)
        if self.on_move is not None:
            self.on_move(Move("", cause, trigger, self.state))
        return out

    def decline(self, trigger: str, cause: str) -> None:
        """An input the state cannot take (``can(trigger)`` is False): no move, shown to ``on_move`` as declined."""
        if self.on_move is not None:
            self.on_move(Move("", cause, trigger, self.state, declined=True))


RUN = Table("run", STATES, TRANSITIONS, IDLE, GUARDS)
"""The run's table (:data:`TRANSITIONS`), bound to each run's translator (and, first, to its opening)."""

