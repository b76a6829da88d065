"""Every recorded scenario: replay == golden (ids as relations), replay == live, and both oracles accept it."""

from __future__ import annotations

from pathlib import Path

import pytest

from strands_agui import StrandsAgent, read_log
from strands_agui.tooling.testing import assert_matches_golden, dump_events
from tests.oracles import assert_valid_streams, check_official_client_many
from tests.support.paths import TESTS
from tests.support.replays import NAMES, replayed
from tests.support.scenarios import BY_NAME, pinned_ids

ROOT = TESTS


@pytest.mark.parametrize("name", NAMES)
def test_replay_matches_golden(name: str) -> None:
    assert_matches_golden(replayed(name), ROOT / "golden" / f"{name}.jsonl")


@pytest.mark.parametrize("name", NAMES)
async def test_live_run_equals_replay_of_its_recording(name: str, tmp_path: Path) -> None:
    from strands_agui.runtime.recordings import Recorder

    scenario = BY_NAME[name]
    log = tmp_path / "run.jsonl"
    live_adapter = StrandsAgent(scenario.agent(), config=scenario.config, id_factory=pinned_ids())
    with Recorder(log, input_data=scenario.input) as recorder:
        live = [e async for e in live_adapter.run(scenario.input, recorder=recorder)]
    replay_adapter = StrandsAgent(scenario.agent(), config=scenario.config, id_factory=pinned_ids())
    again = [e async for e in replay_adapter.replay(read_log(log))]
    assert dump_events(again) == dump_events(live)


HELD = ("outcome", "run_error", "interrupts", "pending_tool_call_ids", "run_result", "messages", "state")


@pytest.mark.slow
def test_every_golden_stream_passes_both_oracles_in_both_encodings() -> None:
    streams = [replayed(name) for name in NAMES]
    reports = assert_valid_streams(streams)
    assert len(reports) == len(NAMES)
    # the same events in the protobuf framing: the official client decodes exactly them and ends up
    # holding what it holds over SSE
    proto_reports = check_official_client_many(streams, proto=True)
    for name, events, sse, proto in zip(NAMES, streams, reports, proto_reports, strict=True):
        assert proto["wire_events"] == dump_events(events), name
        assert {key: proto[key] for key in HELD} == {key: sse[key] for key in HELD}, name


def test_frontend_halt_never_executes_the_next_turn() -> None:
    events = dump_events(replayed("frontend_tool_halt"))
    assert events[-1]["type"] == "RUN_FINISHED"
    assert not any("never be reached" in e.get("delta", "") for e in events)
    assert [e["type"] for e in events].count("TOOL_CALL_RESULT") == 0


def test_state_snapshots_carry_the_whole_state() -> None:
    snapshots = [e["snapshot"] for e in dump_events(replayed("state_hooks")) if e["type"] == "STATE_SNAPSHOT"]
    assert snapshots[0] == {"recipe": {}, "theme": "dark"}
    assert snapshots[1] == {"recipe": {"title": "Soup", "ingredients": ["leek", "potato"]}, "theme": "dark"}
    assert snapshots[2] == {**snapshots[1], "saved": True}


def test_errors_carry_documented_codes() -> None:
    from strands_agui import ERROR_CODES

    names = ("model_error", "model_error_after_tool", "max_tokens", "throttled")
    last = {name: dump_events(replayed(name))[-1] for name in names}
    codes = {name: event.get("code") for name, event in last.items()}
    assert codes == {"model_error": "STRANDS_ERROR", "model_error_after_tool": "STRANDS_ERROR",
                     "max_tokens": "MAX_TOKENS", "throttled": "MODEL_THROTTLED"}
    assert last["model_error_after_tool"]["message"] == "RuntimeError: model died"
    assert set(codes.values()) <= set(ERROR_CODES)
