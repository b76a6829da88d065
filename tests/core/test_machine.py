"""The transition table: reachability, terminal states, illegal triggers, and diagrams that match the table."""

from __future__ import annotations

import shutil
import subprocess
from collections import deque

import pytest
from transitions import MachineError

from strands_agui import StrandsAgent
from strands_agui.core.facts import RunFacts
from strands_agui.core.machine import IDLE, RUN, STATES, TERMINAL_STATES, TRANSITIONS, sources
from strands_agui.tooling import diagrams
from strands_agui.tooling.testing import dump_events
from tests.support.paths import REPO
from tests.support.scenarios import BY_NAME

ROOT = REPO


def edges() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {state: set() for state in STATES}
    for row in TRANSITIONS:
        for source in sources(row):
            graph[source].add(row["dest"] or source)
    return graph


def reachable(start: str, graph: dict[str, set[str]]) -> set[str]:
    seen, queue = {start}, deque([start])
    while queue:
        for nxt in graph[queue.popleft()] - seen:
            seen.add(nxt)
            queue.append(nxt)
    return seen


def test_every_state_is_reachable_from_idle() -> None:
    assert reachable(IDLE, edges()) == set(STATES)


def test_a_terminal_state_is_reachable_from_every_state() -> None:
    graph = edges()
    for state in STATES:
        assert reachable(state, graph) & TERMINAL_STATES, f"{state} cannot end the run"


def test_terminal_states_have_no_way_out() -> None:
    assert all(not edges()[state] for state in TERMINAL_STATES)


def test_every_guard_and_state_in_the_table_is_known_and_every_guard_is_answered_by_a_run() -> None:
    from strands_agui.core.machine import GUARDS
    from strands_agui.core.translator import Translator
    from tests.support.scenarios import run_input

    translator = Translator(run_input())
    for row in TRANSITIONS:
        assert row["dest"] in (*STATES, None)
        assert set(sources(row)) <= set(STATES)
        if "conditions" in row:
            assert isinstance(GUARDS[row["conditions"]](translator), bool)
    assert set(GUARDS) == {row["conditions"] for row in TRANSITIONS if "conditions" in row}


def test_one_machine_mechanism_guards_defined_once() -> None:
    """The translator and the opening hold one ``machine.Machine`` of a ``Table`` (the served run's driver too:
    ``tests/server/transport/test_driver.py``); no model carries a patched ``trigger`` or a guard method of its own."""
    from strands_agui.core.machine import GUARDS, Machine
    from strands_agui.core.opening import RunOpening
    from strands_agui.core.translator import Translator
    from tests.support.scenarios import run_input

    opening = StrandsAgent(BY_NAME["backend_tool"].agent()).opening(run_input())
    opening.start()
    translator = opening.translator(RunFacts())
    assert isinstance(translator.machine, Machine)
    assert translator.machine is opening.machine and translator.machine.model is translator
    for owner in (Translator, RunOpening):
        assert not hasattr(owner, "trigger")
        assert not any(hasattr(owner, guard) for guard in GUARDS)


class Bare:
    pass


@pytest.mark.parametrize("trigger,state", [("finish", "streaming_text"), ("open_text", "idle"),
                                           ("end_turn", "in_tool_call"), ("fail", "finished"),
                                           ("text_delta", "ready")])
def test_an_illegal_trigger_raises(trigger: str, state: str) -> None:
    machine = RUN.bind(Bare(), initial=state)
    with pytest.raises(MachineError):
        machine.fire(trigger, "test")
    assert machine.state == state


def test_no_automatic_transitions() -> None:
    machine = RUN.bind(Bare())
    with pytest.raises(MachineError):
        machine.fire("to_finished", "test")


async def test_an_illegal_trigger_at_run_time_ends_the_run_with_invalid_transition(monkeypatch) -> None:
    from strands_agui.core.handlers.tools import ToolHandler

    scenario = BY_NAME["backend_tool"]
    original = ToolHandler.on_tool_result_message

    def buggy(self, message):  # a translator bug: opens text while tools are still awaited
        self.run.fire("open_text", "bug")
        return original(self, message)

    monkeypatch.setattr(ToolHandler, "on_tool_result_message", buggy)
    events = dump_events([e async for e in StrandsAgent(scenario.agent()).run(scenario.input)])
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "INVALID_TRANSITION"
    assert [e["type"] for e in events].count("RUN_ERROR") == 1


def test_committed_mermaid_and_dot_match_a_fresh_render() -> None:
    assert (ROOT / "diagrams" / "run_machine.mmd").read_text() == diagrams.mermaid()
    assert (ROOT / "diagrams" / "run_machine.dot").read_text() == diagrams.dot()


def test_committed_svg_matches_a_fresh_render() -> None:
    committed = (ROOT / "diagrams" / "run_machine.svg").read_text()
    if shutil.which("dot") is None:
        pytest.fail("Graphviz `dot` is missing: `make test` installs it (apt-get install graphviz)")
    installed = subprocess.run(["dot", "-V"], capture_output=True, text=True).stderr
    if diagrams.graphviz_version(committed) not in installed:
        pytest.skip(f"committed SVG was drawn by another Graphviz ({installed.strip()})")
    assert committed == diagrams.svg()


def test_every_trigger_appears_in_the_mermaid_diagram() -> None:
    text = diagrams.mermaid()  # self-loops of one state share a label: "a: t1 [internal] | t2 [internal]"
    assert all(f": {t}" in text or f"| {t}" in text for t in RUN.triggers())


def test_internal_moves_are_checked_against_the_table() -> None:
    from tests.support.scenarios import run_input

    opening = StrandsAgent(BY_NAME["backend_tool"].agent()).opening(run_input())
    opening.start()
    translator = opening.translator(RunFacts())
    with pytest.raises(MachineError):
        translator.fire("text_delta", "data")  # no text message is open
    translator.handle({"event": {"contentBlockDelta": {"delta": {"text": "hi"}}}})
    translator.fire("text_delta", "data")
    assert translator.state == "streaming_text"


def test_bench_runs(capsys) -> None:
    import sys

    from bench import overhead as bench

    sys.argv = ["bench", "--deltas", "50", "--rounds", "1", "--no-upstream"]
    bench.main()
    assert "ratio adapter/baseline" in capsys.readouterr().out


def test_the_docs_show_the_current_diagram_and_error_codes() -> None:
    import re

    from strands_agui.errors import ERROR_CODES

    assert f"```mermaid\n{diagrams.mermaid()}```" in (ROOT / "docs" / "run-machine.md").read_text()
    errors = (ROOT / "docs" / "errors.md").read_text()
    table = re.search(r"<!-- error-codes:start -->(.*?)<!-- error-codes:end -->", errors, re.S)
    assert table is not None
    rows = re.findall(r"^\| `(\w+)` \| (.+) \|$", table.group(1), re.M)
    assert dict(rows) == ERROR_CODES


def test_each_envelope_state_has_one_closer_in_the_table() -> None:
    """Which closer ``close_open`` fires is the table's (rows marked ``closes``), one per envelope state, each
    leaving it for ``ready``; the translator maps each closer to its END events."""
    from strands_agui.core.machine import CLOSERS, READY
    from strands_agui.core.translator import Translator

    closing = [row for row in TRANSITIONS if row.get("closes")]
    assert sorted(CLOSERS) == sorted(s for row in closing for s in sources(row)) == sorted(
        ["streaming_text", "reasoning", "in_tool_call"])
    assert all(row["dest"] == READY for row in closing)
    from ag_ui.core import RunAgentInput

    translator = Translator(RunAgentInput.model_validate({"threadId": "t", "runId": "r", "messages": []}))
    assert set(CLOSERS.values()) == set(translator.closers) == {"close_text", "close_reasoning", "close_tool_call"}


def test_halt_reasons_are_the_rows_into_halted() -> None:
    from strands_agui.core.machine import HALT_REASONS, HALTED

    into_halted = {row["trigger"] for row in TRANSITIONS if row["dest"] == HALTED}
    assert set(HALT_REASONS) == into_halted
    assert HALT_REASONS == {"end_turn": "frontend_tool", "receive_results": "stop_after_result", "cancel": "cancelled"}
