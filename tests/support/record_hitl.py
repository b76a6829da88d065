"""Record every human-in-the-loop scenario: the paused run, then its resume with the messages the official
client holds after the pause, into tests/fixtures/hitl/ (Strands events) and tests/golden/hitl/ (AG-UI output).

    python -m tests.support.record_hitl [NAME ...]
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile

from strands_agui import StrandsAgent
from strands_agui.runtime.recordings import Recorder
from strands_agui.runtime.storage.sessions import FileSessions
from strands_agui.tooling.testing import assert_matches_golden, dump_events
from tests.oracles import check_official_client
from tests.support.hitl_scenarios import (
    BY_NAME,
    SCENARIOS,
    TEAM_SCENARIOS,
    HitlScenario,
    pause_input,
    resume_input,
    wire,
)
from tests.support.paths import TESTS

ROOT = TESTS
FIXTURES = ROOT / "fixtures" / "hitl"
GOLDEN = ROOT / "golden" / "hitl"


async def record(scenario: HitlScenario, sessions: FileSessions) -> None:
    adapter = StrandsAgent(scenario.agent(), config=scenario.config, sessions=sessions)
    first = pause_input()
    with Recorder(FIXTURES / f"{scenario.name}.pause.jsonl", input_data=first,
                  metadata={"scenario": scenario.name, "run": "pause"}) as recorder:
        paused = [e async for e in adapter.run(first, recorder=recorder)]
    assert_matches_golden(paused, GOLDEN / f"{scenario.name}.pause.jsonl")
    held = check_official_client(dump_events(paused), input=wire(first))["messages"]
    interrupts = dump_events(paused)[-1]["outcome"]["interrupts"]
    second = resume_input(held, scenario.resume_entries(interrupts))
    with Recorder(FIXTURES / f"{scenario.name}.resume.jsonl", input_data=second,
                  metadata={"scenario": scenario.name, "run": "resume"}) as recorder:
        resumed = [e async for e in adapter.run(second, recorder=recorder)]
    assert_matches_golden(resumed, GOLDEN / f"{scenario.name}.resume.jsonl")
    print(f"{scenario.name}: {len(paused)} + {len(resumed)} AG-UI events")


def main(names: list[str]) -> None:
    os.environ["STRANDS_AGUI_UPDATE_GOLDEN"] = "1"
    FIXTURES.mkdir(parents=True, exist_ok=True)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as directory:
        for scenario in [BY_NAME[n] for n in names] or SCENARIOS + TEAM_SCENARIOS:
            asyncio.run(record(scenario, FileSessions(directory)))


if __name__ == "__main__":
    main(sys.argv[1:])
