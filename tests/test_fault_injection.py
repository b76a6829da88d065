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

from tests.support.faults import POINTS, Case, cases, check, check_clients

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
