"""No input is dropped silently: every Strands input the run's state cannot take is a declined move
(``Translator.decline``), a ``Move`` with ``declined`` set that ``on_move`` sees (the inspector shows it in its
step's ``declined`` list: ``tests/server/console/test_inspector.py``).

:data:`DECLINES` lists every such case the core has, with how a run reaches it; a test reads the core's source
for its ``decline`` calls so a new one cannot be added without a line here.
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

import pytest
from strands import Agent

from strands_agui import StrandsAgent
from strands_agui.core.machine import Move
from strands_agui.tooling.scripted import Cited, Reasoning, ScriptedModel, Step, Text
from tests.support.paths import REPO
from tests.support.recorded import FIXTURES, Stepper
from tests.support.scenarios import run_input

CORE = REPO / "src" / "strands_agui" / "core"

# (trigger the state could not take, cause) -> how a run reaches it: the script of a real Strands run, or None
# when no Strands 1.62 run can (the check stays: a provider or a later Strands may send it).
DECLINES: dict[tuple[str, str], list[Step] | None] = {
    # a citation delta before any text of its block (a cited block whose text is empty)
    ("text_delta", "contentBlockDelta.citation"): [Cited("", ({"title": "Atlas", "location": {}},)), Text("Paris.")],
    # a signature before any reasoning text (a reasoning block whose text is empty)
    ("reasoning_delta", "contentBlockDelta.reasoningContent.signature"): [Reasoning("", "c2ln"), Text("Hi.")],
    # argument fragments of no announced call: Strands itself needs the block's start to stream a tool's input
    ("tool_args", "contentBlockDelta.toolUse"): None,
    # tool results when no tool batch is awaited: Strands yields a batch's results only after the turn asked for
    # it, and a halted run is not read further (frontend_tool_halt's recording holds the results it never reads)
    ("receive_results", "message"): None,
}


def _declines_in_core() -> set[tuple[str, str]]:
    found = set()
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "decline" \
                    and all(isinstance(a, ast.Constant) for a in node.args):
                found.add(tuple(a.value for a in node.args))
    return found


def test_every_decline_of_the_core_is_listed() -> None:
    assert _declines_in_core() == set(DECLINES)


REACHED = [(case, script) for case, script in DECLINES.items() if script is not None]


@pytest.mark.parametrize("case,script", REACHED, ids=[cause for (_, cause), _ in REACHED])
def test_a_declined_input_is_a_declined_move_of_the_runs_trace(case: tuple[str, str], script: list[Step]) -> None:
    agent = StrandsAgent(Agent(model=ScriptedModel([script]), callback_handler=None))
    moves: list[Move] = []

    async def run() -> list[Any]:
        return [event async for event in agent.run(run_input(), on_move=moves.append)]

    events = asyncio.run(run())
    assert [(m.trigger, m.cause, m.state) for m in moves if m.declined] == [(*case, "ready")]
    assert events[-1].type.value == "RUN_FINISHED"


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.jsonl")), ids=lambda p: p.stem)
def test_no_recorded_run_declines_anything(path: Path) -> None:
    run = Stepper(str(path.relative_to(FIXTURES).with_suffix("")))
    run.rest()
    assert run.declined() == []
