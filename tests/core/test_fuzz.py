"""Fuzzed conformance, fast profile: generated production-shaped Strands logs (tests/support/strands_events.py) replayed
through the translator must give valid AG-UI streams. ``make fuzz`` runs the same check on 10,000 runs."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from hypothesis import HealthCheck, given, settings

from strands_agui import StrandsAgentConfig
from strands_agui.runtime.recordings import RecordedRun, read_log
from tests.support.fuzz import check, fuzz
from tests.support.paths import TESTS
from tests.support.strands_events import FuzzRun, fuzz_runs

FIXTURES = TESTS / "fixtures"
EXAMPLES = int(os.environ.get("STRANDS_AGUI_FUZZ_RUNS", "60"))


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.data_too_large])
@given(fuzz_runs())
def test_generated_runs_translate_to_valid_streams(run: FuzzRun) -> None:
    check(run)


@pytest.mark.slow
def test_a_sample_passes_the_official_client() -> None:
    runs, _, agui_events = fuzz(24, sample=12)
    assert runs == 24 and agui_events > runs


def shape(value: Any, depth: int = 3) -> Any:
    """An event's skeleton: keys and value types three levels deep (deeper lies the payload: tool input,
    interrupt reasons, usage), the way two events of one kind agree."""
    if isinstance(value, dict) and depth:
        return tuple(sorted((key, shape(item, depth - 1)) for key, item in value.items()
                            if key not in ("event_loop_parent_cycle_id",)))
    if isinstance(value, list | dict):
        return type(value).__name__
    return "scalar"


def recorded_shapes() -> set[Any]:
    shapes = set()
    for path in [*FIXTURES.glob("*.jsonl"), *FIXTURES.glob("*/*.jsonl")]:
        shapes |= {shape(event) for event in read_log(path).events}
    return shapes


RECORDED = recorded_shapes()
# Shapes the reference documents (strands-stream-events.md) that no recorded fixture holds yet.
DOCUMENTED_ONLY = ("event_loop_throttled_delay", "tool_stream", "multiagent_", "limit_turns", "cancelled",
                   "Cancelled by user", "reasoning_signature")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fuzz_runs())
def test_generated_events_have_recorded_shapes(run: FuzzRun) -> None:
    """Every generated event has the shape of an event a real run recorded, unless the reference documents it
    and no fixture covers it yet (then it names a documented kind)."""
    known = RECORDED
    for event in run.log.events:
        if shape(event) not in known:
            assert any(kind in json.dumps(event) for kind in DOCUMENTED_ONLY), event


INPUT = RunAgentInput.model_validate({"threadId": "t", "runId": "r", "messages": []})
CANCELLED = {"role": "assistant", "content": [{"text": "Cancelled by user"}]}


def cut_tool_block(args: str) -> list[dict[str, Any]]:
    """A tool-use block whose arguments stop at ``args`` (its contentBlockStop never comes)."""
    use = {"toolUseId": "tooluse_1", "name": "get_weather", "input": args}
    return [{"init_event_loop": True}, {"start": True}, {"start_event_loop": True},
            {"event": {"messageStart": {"role": "assistant"}}},
            {"event": {"contentBlockStart": {"contentBlockIndex": 0, "start": {
                "toolUse": {"name": "get_weather", "toolUseId": "tooluse_1"}}}}},
            {"event": {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": args}}}}},
            {"type": "tool_use_stream", "delta": {"toolUse": {"input": args}}, "current_tool_use": use}]


@pytest.mark.parametrize("args", ['{"loc', '{"city": "\\u00', '{"city": "x\\'])
@pytest.mark.parametrize("ending", ["model error", "cancel", "throttle"])
def test_a_tool_block_cut_mid_arguments_still_gives_valid_arguments(ending: str, args: str) -> None:
    """Found by this fuzzer: a cut inside the arguments (and inside a \\u escape) left them unparsable."""
    events, exception = cut_tool_block(args), None
    if ending == "model error":
        events.append({"force_stop": True, "force_stop_reason": "connection reset"})
        exception = {"type": "RuntimeError", "message": "connection reset"}
    elif ending == "cancel":
        events += [{"message": CANCELLED}, {"result": {"type": "agent_result", "message": CANCELLED,
                                                       "stop_reason": "cancelled", "interrupts": None}}]
    else:
        events += [{"event_loop_throttled_delay": 4}, {"event": {"messageStart": {"role": "assistant"}}},
                   {"message": CANCELLED | {"content": [{"text": "Hi"}]}},
                   {"result": {"type": "agent_result", "message": CANCELLED, "stop_reason": "end_turn"}}]
    check(FuzzRun(RecordedRun(events=tuple(events), exception=exception), INPUT, StrandsAgentConfig()))
