"""``make fuzz``: the translator against generated Strands logs, then fault injection, then schemathesis at full
strength.

    python -m tests.support.fuzz [--runs 10000] [--sample 100] [--faults 2000] [--schemathesis 300]

Every generated run (``tests/support/strands_events.py``) is replayed through ``StrandsAgent.replay``; its AG-UI
events must pass ag-ui-validate with no error or warning, start with RUN_STARTED, end with exactly one terminal
event, never report an adapter bug and cross the protobuf framing unchanged. A sample of the streams also goes
through the official client (``--strict``). Then ``--faults`` generated runs of a real Strands agent with one fault
each (``tests/support/faults.py``: a handler, the encoder, a user callable or a tool raising or returning junk),
every stream through ag-ui-validate and both official client generations. Prints the counts; exits non-zero on the
first failure (hypothesis shrinks it and prints a replayable log or case).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings

from strands_agui import StrandsAgent
from strands_agui.errors import ERROR_CODES, strands_failure
from strands_agui.runtime.recordings import ReplayedException
from strands_agui.tooling.testing import dump_events
from tests.oracles import check_ag_ui_validate, check_official_client_many
from tests.support.strands_events import FuzzRun, fuzz_runs

ADAPTER_BUGS = ("ADAPTER_ERROR", "INVALID_TRANSITION")


def _no_agent(_: Any) -> Any:
    raise AssertionError("a replay never builds a Strands agent")


def translate(run: FuzzRun) -> list[dict[str, Any]]:
    """The AG-UI events (wire dicts) the adapter emits for ``run``."""
    ids = (f"id-{n}" for n in itertools.count())
    adapter = StrandsAgent(_no_agent, config=run.config, id_factory=lambda: next(ids))

    async def collect() -> list[Any]:
        return [event async for event in adapter.replay(run.log, input_data=run.input_data)]

    return dump_events(asyncio.run(collect()))


def check(run: FuzzRun) -> list[dict[str, Any]]:
    """Translate ``run`` and assert everything the fuzzer promises; returns the events."""
    events = translate(run)
    types = [event["type"] for event in events]
    assert types[0] == "RUN_STARTED", types
    assert types[-1] in ("RUN_FINISHED", "RUN_ERROR"), types
    assert types.count("RUN_FINISHED") + types.count("RUN_ERROR") == 1, types
    if types[-1] == "RUN_ERROR":
        code = events[-1]["code"]
        assert code in ERROR_CODES and code not in ADAPTER_BUGS, events[-1]
        assert run.log.exception is not None, events[-1]
        expected = strands_failure(ReplayedException.from_record(run.log.exception))
        assert (code, events[-1]["message"]) == (expected.code, expected.message), events[-1]
    check_ag_ui_validate(events)
    return events


def proto_carries(events: list[dict[str, Any]]) -> None:
    """The protobuf framing carries every event unchanged (the server's; ``tests/server/transport/test_proto.py`` runs
    it on generated runs too, so the core's fuzz needs no protobuf)."""
    from strands_agui.server.transport.proto.codec import decode, encode

    for event in events:
        assert decode(encode(event)) == event, event


def fuzz(runs: int, sample: int,
         also: Callable[[list[dict[str, Any]]], None] | None = None) -> tuple[int, int, int]:
    """Check ``runs`` generated runs (and each stream by ``also``, when given); the official client checks
    ``sample`` of them. Returns the counts (runs, Strands events, AG-UI events)."""
    counts = [0, 0, 0]
    kept: list[list[dict[str, Any]]] = []
    every = max(1, runs // max(1, sample))

    @settings(max_examples=runs, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(fuzz_runs())
    def one(run: FuzzRun) -> None:
        events = check(run)
        if also is not None:
            also(events)
        counts[0] += 1
        counts[1] += len(run.log.events)
        counts[2] += len(events)
        if counts[0] % every == 0 and len(kept) < sample:
            kept.append(events)

    one()
    if kept:
        check_official_client_many(kept)
    return counts[0], counts[1], counts[2]


def faults(runs: int) -> tuple[int, dict[str, int]]:
    """``runs`` generated runs with one injected fault each (``tests/support/faults.py``); every stream is checked
    by ag-ui-validate as it comes and by both official client generations at the end. Returns the run count and
    the terminal codes seen."""
    from collections import Counter

    from tests.support.faults import Case, cases, check_clients
    from tests.support.faults import check as check_faulty

    streams: list[list[dict[str, Any]]] = []
    codes: Counter[str] = Counter()

    @settings(max_examples=runs, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(cases())
    def one(case: Case) -> None:
        events = check_faulty(case)
        streams.append(events)
        codes[events[-1].get("code", events[-1]["type"])] += 1

    one()
    for start in range(0, len(streams), 500):  # one node process per generation and batch
        check_clients(streams[start:start + 500])
    return len(streams), dict(codes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10_000, help="generated Strands runs (default 10000)")
    parser.add_argument("--sample", type=int, default=100, help="of them, checked by the official client")
    parser.add_argument("--faults", type=int, default=2000, help="generated runs with one injected fault each "
                        "(default 2000); 0 skips them")
    parser.add_argument("--schemathesis", type=int, default=300, help="schemathesis examples per operation "
                        "(all phases); 0 skips it")
    args = parser.parse_args(argv)
    runs, strands_events, agui_events = fuzz(args.runs, args.sample, also=proto_carries)
    print(f"fuzz: {runs} generated Strands runs ({strands_events} Strands events -> {agui_events} AG-UI events): "
          f"0 failures (ag-ui-validate 0 errors/warnings, no exception, no adapter error); "
          f"official client --strict accepted a sample of {min(args.sample, runs)}")
    if args.faults:
        count, codes = faults(args.faults)
        print(f"fuzz: {count} runs with one injected fault each: every stream valid for ag-ui-validate and both "
              f"official client generations, no 'Failed to detach context' (encoder faults aside: a known gap); "
              f"terminal events {codes}")
    if args.schemathesis:
        env = {**os.environ, "STRANDS_AGUI_FUZZ_EXAMPLES": str(args.schemathesis), "STRANDS_AGUI_FUZZ_PHASES": "all"}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/server/test_schemathesis.py"], env=env, check=False)
        if done.returncode:
            return done.returncode
        print(f"fuzz: schemathesis, all phases, {args.schemathesis} examples per operation: 0 server errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
