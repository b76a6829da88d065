"""A run's machine trace checked against the transition table."""

from __future__ import annotations

from strands_agui.core.machine import IDLE, TERMINAL_STATES, TRANSITIONS, sources


def assert_legal(transitions: list[tuple[str, str, str]]) -> None:
    """Every transition is a row of the machine's table taken from the state the previous one left."""
    state = IDLE
    for cause, trigger, dest in transitions:
        rows = [r for r in TRANSITIONS if r["trigger"] == trigger and state in sources(r)]
        assert any((r["dest"] or state) == dest for r in rows), f"{trigger} ({cause}) from {state} to {dest}"
        state = dest
    assert state in TERMINAL_STATES or state == "paused"
