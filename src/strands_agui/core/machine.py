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

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, NamedTuple

from transitions import Machine

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


def sources(row: dict[str, Any]) -> Iterable[str]:
    """The source states of one table row."""
    src = row["source"]
    return [src] if isinstance(src, str) else list(src)


def rows() -> list[dict[str, Any]]:
    """The table as ``transitions`` takes it (the moves only, without ``closes`` / ``halt``)."""
    return [{k: v for k, v in row.items() if k in ROW_KEYS} for row in TRANSITIONS]


# Envelope state -> the trigger that closes it (rows marked ``closes``): what ``Translator.close_open`` fires.
# Each envelope state has exactly one closer, so which one runs is the table's answer, not an order.
CLOSERS: dict[str, str] = {state: row["trigger"] for row in TRANSITIONS if row.get("closes") for state in sources(row)}

# Trigger -> why it halts the run when it lands in ``halted`` (rows marked ``halt``): a frontend tool was called,
# a result's behaviour stops streaming, or the run was cancelled. The outcome reads it (``Translator.halt``).
HALT_REASONS: dict[str, str] = {row["trigger"]: row["halt"] for row in TRANSITIONS if "halt" in row}


# Internal moves (dest=None, no guard) by trigger -> the states they are legal in. The translator checks these
# itself on the hot path (one per delta) instead of dispatching through transitions; same table, same rule.
INTERNAL_MOVES: dict[str, frozenset[str]] = {
    row["trigger"]: frozenset(sources(row))
    for row in TRANSITIONS
    if row["dest"] is None and "conditions" not in row
}

# Trigger -> every state it may be fired from (whatever its guards answer): what ``can`` asks.
LEGAL: dict[str, frozenset[str]] = {
    trigger: frozenset(s for row in TRANSITIONS if row["trigger"] == trigger for s in sources(row))
    for trigger in dict.fromkeys(row["trigger"] for row in TRANSITIONS)
}

# The guards the table names, in table order: the questions a machine's model must answer.
GUARDS: tuple[str, ...] = tuple(dict.fromkeys(row["conditions"] for row in TRANSITIONS if "conditions" in row))


def can(state: str, trigger: str) -> bool:
    """True when the table has a row firing ``trigger`` from ``state`` (guards aside)."""
    return state in LEGAL[trigger]


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


@cache
def _machine() -> Machine:
    """The process-wide machine. The table is immutable and a transitions ``Event`` works on any object
    holding a ``state``, so one machine serves every run; no run's state lives in it."""
    return Machine(
        model=None,
        states=list(STATES),
        transitions=rows(),
        initial=IDLE,
        auto_transitions=False,
        send_event=False,
    )


def build_machine(model: Any, *, initial: str = IDLE) -> Machine:
    """Bind ``model`` (the run's translator, which answers the guards) to the machine: ``model.state`` starts at
    ``initial`` and ``model.trigger(name)`` fires a trigger of the table, raising ``MachineError`` when it is
    illegal from the current state."""
    machine = _machine()
    events = machine.events
    model.state = initial
    model.trigger = lambda name: events[name].trigger(model)
    return machine


def triggers() -> tuple[str, ...]:
    """Every trigger name, in table order, without repeats."""
    return tuple(dict.fromkeys(row["trigger"] for row in TRANSITIONS))
