"""Record every scenario's live Strands run into tests/fixtures/ and its AG-UI output into tests/golden/.

    python -m tests.support.record_fixtures [NAME ...]
"""

from __future__ import annotations

import asyncio
import sys

from strands_agui import StrandsAgent
from strands_agui.runtime.recordings import Recorder
from strands_agui.tooling.testing import assert_matches_golden
from tests.support.paths import TESTS

from .scenarios import BY_NAME, SCENARIOS, Scenario

ROOT = TESTS
FIXTURES = ROOT / "fixtures"
GOLDEN = ROOT / "golden"


async def record(scenario: Scenario) -> list:
    adapter = StrandsAgent(scenario.agent(), config=scenario.config)
    path = FIXTURES / f"{scenario.name}.jsonl"
    with Recorder(path, input_data=scenario.input, metadata={"scenario": scenario.name}) as recorder:
        return [event async for event in adapter.run(scenario.input, recorder=recorder)]


def main(names: list[str]) -> None:
    import os

    os.environ["STRANDS_AGUI_UPDATE_GOLDEN"] = "1"
    for scenario in [BY_NAME[n] for n in names] or SCENARIOS:
        events = asyncio.run(record(scenario))
        assert_matches_golden(events, GOLDEN / f"{scenario.name}.jsonl")
        print(f"{scenario.name}: {len(events)} AG-UI events")


if __name__ == "__main__":
    main(sys.argv[1:])
