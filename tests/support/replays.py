"""The recorded fixtures (``tests/fixtures/``, re-recorded by ``python -m tests.support.record_fixtures`` and
``tests.support.record_hitl``) replayed with their scenario's config, and live runs collected the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput

from strands_agui import StrandsAgent, replay_to_list
from strands_agui.tooling.testing import dump_events
from tests.support import hitl_scenarios, scenarios

TESTS = Path(__file__).resolve().parent.parent
FIXTURES = TESTS / "fixtures"
GOLDEN = TESTS / "golden"
NAMES = [s.name for s in scenarios.SCENARIOS]
"""Every recorded scenario of ``tests/support/scenarios.py``."""


def replayed(name: str) -> list[BaseEvent]:
    """A scenario's recording (``tests/support/scenarios.py``) replayed: the AG-UI events."""
    return replay_to_list(FIXTURES / f"{name}.jsonl", config=scenarios.BY_NAME[name].config)


def replayed_hitl(run: str) -> list[BaseEvent]:
    """One run (``<scenario>.pause`` or ``<scenario>.resume``) of a human-in-the-loop scenario
    (``tests/support/hitl_scenarios.py``) replayed: the AG-UI events."""
    scenario = hitl_scenarios.BY_NAME[run.split(".")[0]]
    return replay_to_list(FIXTURES / "hitl" / f"{run}.jsonl", config=scenario.config)


async def collected(adapter: StrandsAgent, input_data: RunAgentInput) -> list[dict[str, Any]]:
    """A live run's events, as JSON."""
    return dump_events([e async for e in adapter.run(input_data)])
