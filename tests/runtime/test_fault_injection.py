"""The fault-injection fuzz in ``make test`` (a bounded, seeded number of cases; ``make fuzz`` runs more): generated
runs of a real ``strands.Agent`` and generated configurations, each with one fault at a random point (a handler,
the message mirror, the translator's dispatch and moves, the encoder, a user callable that raises or returns
junk, a tool that raises), served through the real driver and SSE framing. Every stream passes both oracles with
one terminal event and a documented code, and Strands is closed without "Failed to detach context"
(``tests/support/faults.py``)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from strands_agui.tooling.scripted import Text
from tests.support.faults import ENCODER, POINTS, Case, cases, check, check_clients

RUNS = int(os.environ.get("STRANDS_AGUI_FAULT_RUNS", "150"))


@pytest.mark.slow
def test_every_stream_stays_valid_whatever_fails_and_wherever() -> None:
    streams: list[list[dict]] = []
    points: set[str] = set()

    @settings(max_examples=RUNS, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(cases())
    def one(case: Case) -> None:
        streams.append(check(case))
        points.add(case.point)

    one()
    assert len(points) >= len(POINTS) // 2, sorted(points)  # the faults land in many places, not a few
    check_clients(streams)


@pytest.mark.parametrize("nth", [1, 3, 7, 9, 12, 13])
def test_a_run_cut_short_inside_a_streaming_tool_closes_strands_without_the_detach_error(nth: int) -> None:
    """An event the encoder cannot serialize cuts the run short (ENCODING_ERROR) while Strands is still running,
    here inside an async-generator tool (``count_down``). The driver used to stop it by cancelling it at its
    next await, inside the tool: Strands' tool middleware generator was left to asyncio's finalizer and
    OpenTelemetry logged "Failed to detach context" (every one of these cases). The run is now closed in its
    own task and ``translate`` stops Strands its own way first (``check`` fails on the detach error)."""
    events = check(Case(turns=[[Text("x")]], team="streaming_tool", point=ENCODER, nth=nth))
    assert events[-1]["code"] == "ENCODING_ERROR"
    check_clients([events])
