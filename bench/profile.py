"""Where a served run's CPU goes: py-spy on each server process while runs arrive at a fixed, low rate.

``python -m bench.profile --servers ours,floor --rate 20 --seconds 20`` starts each server
(``bench/apps.py --adapter X --model paced``, the open loop's setting), warms it up, then records it with
``py-spy record --pid`` (raw collapsed stacks, idle samples left out, so a sample is CPU time) while
``bench.openloop.offer`` starts runs at ``--rate`` runs/s. Each sample is charged to one row of
:data:`RULES`: the first rule whose pattern is on the sample's stack anywhere (``any`` rules, in order: a
phase of the run such as building its agent, whatever it calls), else the innermost frame that a ``leaf`` rule
matches (a component: Strands, the translator, the asyncio loop, ...). Printed: milliseconds per run of
each row per server, and each server's difference to the floor. The ``--endpoint`` / ``--agent`` switches of
the other parts apply to ours. Needs ``py-spy`` (the bench extra) and permission to trace (root, or
``ptrace_scope`` 0).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from bench.http import free_port, keywords, server_options, start_server
from bench.openloop import SERVERS, Target, offer

RULES: tuple[tuple[str, str, str], ...] = (
    # (row, mode, regex on one frame "function (file:line)"); "any" rules win, in order
    ("building the run's agent", "any",
     r"strands_agui/runtime/building/run_agent\.py|^Agent\.__init__ \(strands/agent/agent\.py"),
    ("session / pause lookups (ours)", "any", r"strands_agui/runtime/(storage/sessions|pause)\.py"),
    ("request: FastAPI dependencies, body parsing + pydantic validation", "any", r"fastapi/dependencies/"),
    ("request: our checks (validation.py, negotiation.py)", "any",
     r"^(?!LimitedRoute\.get_route_handler).*strands_agui/server/(validation|negotiation)\.py"),
    ("AG-UI events: pydantic models, dump, encoding", "any",
     r"^(encode_event|sse_frame|EventEncoder\.\w+) |ag_ui/(core|encoder)/"),
    ("pacing: loop turns (server/transport/pacing.py)", "any", r"strands_agui/server/transport/pacing\.py"),
    ("version gating (server/transport/versions.py)", "any", r"strands_agui/server/transport/versions\.py"),
    ("logging / OpenTelemetry", "leaf", r"logging/|traceback\.py|linecache\.py|opentelemetry/"),
    ("pydantic (other)", "leaf", r"pydantic/"),
    ("the scripted, paced model", "leaf",
     r"^(PacedModel|ScriptedModel|_tool_turn|<lambda>)\.?\w* \((bench|strands_agui/tooling)"),
    ("the floor's route (bench/apps.py)", "leaf", r"^add_floor\."),
    ("Strands' own run", "leaf", r"strands/"),
    ("our translator + machine (core/, transitions)", "leaf", r"strands_agui/core/|transitions/"),
    ("our run loop (runtime/loop.py and adapter.py)", "leaf", r"strands_agui/runtime/"),
    ("our stream: frames, coalescing, watcher (streaming.py, driver.py)", "leaf",
     r"strands_agui/server/(streaming|driver)\.py"),
    ("resumable runs: event log, ids (resumable.py, events.py)", "leaf", r"strands_agui/server/(resumable|events)\.py"),
    ("upstream's adapter (ag_ui_strands)", "leaf", r"ag_ui_strands/"),
    ("socket writes (the send syscall)", "leaf", r"^_SelectorSocketTransport\.write "),
    ("h11 + uvicorn: HTTP parsing, send path", "leaf", r"h11/|uvicorn/"),
    ("Starlette / FastAPI (middleware, routing, responses)", "leaf", r"starlette/|fastapi/|anyio/"),
    ("asyncio: loop, tasks, timers", "leaf", r"asyncio/|selectors\.py"),
    ("worker threads (concurrent.futures)", "leaf", r"concurrent/futures/"),
    ("json", "leaf", r"json/"),
)
OTHER = "other"
WAITING = re.compile(r"^(EpollSelector\.select \(selectors\.py|_worker \(concurrent/futures/thread\.py)")
"""Leaves that wait (the loop in ``epoll_wait``, a pool thread in ``queue.get``): py-spy counts some of them as
busy (a thread woken but not yet on a core); they are dropped."""


def classify(stack: list[str]) -> str:
    """The row of one sample (``stack``: root first)."""
    for row, mode, pattern in RULES:
        if mode == "any" and any(re.search(pattern, frame) for frame in stack):
            return row
    for frame in reversed(stack):
        for row, mode, pattern in RULES:
            if mode == "leaf" and re.search(pattern, frame):
                return row
    return OTHER


def tally(raw: str) -> Counter[str]:
    """Samples per row from py-spy's raw output (``frame;frame;...;leaf COUNT`` lines), waits left out."""
    rows: Counter[str] = Counter()
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if stack and not WAITING.match(frames[-1]):
            rows[classify(frames)] += int(count)
    return rows


def _py_spy() -> str:
    """py-spy beside this Python (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    return str(beside) if beside.exists() else "py-spy"


async def _profile(target: Target, rate: float, seconds: float, hz: int, out: Path) -> tuple[int, float]:
    """Warm ``target`` up, then record it while runs arrive: the runs done and the server's CPU seconds."""
    numbers = itertools.count()
    await offer(target, "chat", 10, 1, numbers)
    spy = await asyncio.create_subprocess_exec(
        _py_spy(), "record", "--pid", str(target.pid), "-r", str(hz), "-d", str(int(seconds + 2)), "-f", "raw",
        "-o", str(out), stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    await asyncio.sleep(0.5)  # py-spy attached
    load = await offer(target, "chat", rate, seconds, numbers)
    await spy.wait()
    if load.failed:
        print(f"  {target.path}: {load.failed} runs failed: {dict(load.errors)}", file=sys.stderr)
    return load.done, load.cpu


def profile(name: str, server_args: list[str], rate: float, seconds: float, hz: int, raw: Path,
            extra: dict[str, Any]) -> dict[str, float]:
    """Milliseconds of CPU per run of each row for one server (its raw stacks kept in ``raw/name.txt``).

    py-spy counts a thread that is runnable but waiting for a core as busy, so on a loaded machine its
    samples add up to more than the CPU used: each row gets its share of the samples times the CPU per
    run measured from ``/proc`` over the same runs."""
    port = free_port()
    server = start_server(port, [*server_args, "--adapter", name, "--model", "paced"])
    try:
        out = raw / f"{name}.txt"
        runs, cpu = asyncio.run(_profile(Target(port, server.pid, f"/{name}/chat", extra), rate, seconds, hz, out))
        rows = tally(out.read_text())
    finally:
        server.terminate()
        server.wait(10)
    total = sum(rows.values())
    print(f"  {name}: {runs} runs, {cpu / runs * 1e3:.2f} ms CPU/run (/proc), py-spy: {total / hz / runs * 1e3:.2f} "
          f"ms/run busy ({total} samples)", file=sys.stderr)
    return {row: samples / total * cpu / runs * 1e3 for row, samples in rows.items()}


def report(profiles: dict[str, dict[str, float]]) -> str:
    names = list(profiles)
    floor = profiles.get("floor", {})
    diffs = [n for n in names if n != "floor" and floor]
    lines = ["| where (ms of CPU per run) | " + " | ".join(names) + "".join(f" | {n} - floor" for n in diffs) + " |",
             "|---|" + "---:|" * (len(names) + len(diffs))]
    for row in [*(rule[0] for rule in RULES), OTHER, "total"]:
        values = {n: (sum(p.values()) if row == "total" else p.get(row, 0.0)) for n, p in profiles.items()}
        if not any(values.values()):
            continue
        cells = [f"{values[n]:.2f}" for n in names]
        cells += [f"{values[n] - values['floor']:+.2f}" for n in diffs]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--servers", default="ours,floor", help=f"a subset of {','.join(SERVERS)}")
    parser.add_argument("--rate", type=float, default=20, help="runs/s while recording")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--hz", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw stacks here (NAME.txt per server)")
    server_args = server_options(parser)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        raw = opts.raw or Path(tmp)
        raw.mkdir(parents=True, exist_ok=True)
        profiles = {name: profile(name, server_args(opts), opts.rate, opts.seconds, opts.hz, raw, keywords(opts.body))
                    for name in opts.servers.split(",")}
    print(report(profiles))


if __name__ == "__main__":
    main()
