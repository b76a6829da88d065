"""``make bench`` (open loop): ours, upstream and the floor at a provider's pace, runs arriving at fixed rates.

Each server (``ours``, ``upstream`` = ``ag_ui_strands==1.0.2``, ``floor`` = no adapter, see ``bench/apps.py``)
runs in its own uvicorn process, all on the paced model (first chunk after 200 ms, then one every 10 ms);
ours with admission control off (``--admission`` keeps it on), since a run it shed would count as failed here.
For each rate (``--rates``, runs/s) and server in turn (the order alternates from rate to rate), this
process starts runs at fixed times, ``start + i / rate``, whether or not the earlier ones have finished: an
open loop, so a slow server gets more concurrent runs, as it would from real users, and never fewer requests.

Latency is counted from each run's *scheduled* start, so a late client never excuses a slow server:

* TTFE: scheduled start -> the first ``data:`` byte (ours and upstream: RUN_STARTED; the floor has nothing to
  say before the model's first words); first words: -> the first ``"delta"`` (the model's first chunk, 200 ms
  after the model was called); run: -> the end of the response;
* CPU/run: the server process's CPU (user + system, ``/proc``) over the rate's window / completed runs;
* writes/run: the body chunks the client read, one per ASGI ``send`` of the server;
* the client's own lag (scheduled start -> request written) and CPU per run, to show it kept up.

**Workers** (``--serve-workers 1,2``): ours served by ``strands-agui serve --app bench.apps:served --workers N``
as servers ``serve x1``, ``serve x2`` (``--serve-args`` adds serve's own flags; ``--stateful``: threads kept in
files, ``--threads --sessions TMP``, and resumable runs in a redis-server the bench starts, ``--resumable
--events redis://...``). CPU per run is the whole process tree's (the supervisor and its workers); Redis's is
counted apart (``--json``: ``beside_cpu_per_run``). After the table, the rate each server **holds** (every run
done, run p50 at most ``HELD`` x its p50 at the lowest rate) and each worker count's against one worker's
(issue 31: 2 workers >= 1.8x), with the most it could be on this machine (``ceiling``: the workers share its
CPUs with the client and Redis).

**Refined** (``--refine K``): a grid of rates says only which of its rates a server held, so a ratio of two held
rates is one of a few quotients of the grid's. After the grid, each server that held some rate and failed a higher
one gets ``K`` more probes, each measured exactly like a grid rate (``offer``, ``--seconds`` of arrivals): the
midpoint, to a whole run/s, of the highest rate it held and the lowest above it it did not (``bracket``,
``probe_rate``), the bracket narrowing to the probe's half (bisection; the servers alternate, one probe each per
round). The held rate is then read from every rate measured, and each is printed with the lowest rate above it
that failed, so N workers' ratio is given with its bounds. ``--refine 0``: the grid alone.

Runs reuse idle kept-alive connections (a new one when none is idle or the idle one has waited longer than
``IDLE_SECONDS``, which uvicorn may be closing); every thread id is new. A run
that fails (not 200, no RUN_FINISHED, over ``--timeout``) is counted, never timed. The ratios to the
floor measured in the same bench are the result: absolute times move with the machine and its load.
Not a test: nothing is asserted on time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.http import ADAPTERS, body, free_port, keywords, read_run, request, server_cpu, server_options, start_server

SERVERS = (*ADAPTERS, "floor")
Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@dataclass
class Load:
    """One server's runs at one rate."""

    offered: int = 0
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)  # why runs failed
    cpu: float = 0.0  # server CPU seconds over the window
    beside_cpu: float = 0.0  # the CPU seconds of the processes it uses (``Target.beside``: Redis) over the window
    client_cpu: float = 0.0
    chunks: int = 0  # the server's writes (body chunks)
    ttfe: list[float] = field(default_factory=list)
    words: list[float] = field(default_factory=list)
    run: list[float] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)

    @property
    def done(self) -> int:
        return len(self.run)

    def per_run(self, seconds: float) -> float:
        return seconds / max(self.done, 1)


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank; NaN for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@dataclass
class Target:
    port: int
    pid: int
    path: str
    extra: dict[str, Any] = field(default_factory=dict)  # top-level fields added to every body (--body)
    beside: list[int] = field(default_factory=list)  # processes the server uses, their CPU counted apart (Redis)
    idle: list[tuple[Connection, float]] = field(default_factory=list)  # (connection, idle since)


def beside_cpu(target: Target) -> float:
    """CPU seconds the processes the server uses (``Target.beside``: Redis) have used so far."""
    return sum(server_cpu(pid) for pid in target.beside)


IDLE_SECONDS = 4.0
"""The longest a kept-alive connection is left idle before a run reuses it: uvicorn closes one idle for 5 s
(``timeout_keep_alive``), and a request written as it closes reads nothing (``IncompleteReadError``)."""


def _idle_connection(target: Target) -> Connection | None:
    """The most recently idle connection that has not waited too long (older ones are closed)."""
    while target.idle:
        conn, since = target.idle.pop()
        if time.perf_counter() - since < IDLE_SECONDS:
            return conn
        conn[1].close()
    return None


async def _one(target: Target, payload: bytes, scheduled: float, load: Load, timeout: float) -> None:
    conn = _idle_connection(target) or await asyncio.open_connection("127.0.0.1", target.port)
    load.lag.append(time.perf_counter() - scheduled)
    try:
        reply = await asyncio.wait_for(read_run(*conn, payload), timeout)
    except (TimeoutError, OSError, RuntimeError, ValueError, asyncio.IncompleteReadError) as exc:
        load.failed += 1
        load.errors[f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:80]}"] += 1  # a status line
        conn[1].close()
        return
    load.ttfe.append(reply.first - scheduled)
    load.words.append(reply.words - scheduled)
    load.run.append(reply.end - scheduled)
    load.chunks += reply.chunks
    target.idle.append((conn, time.perf_counter()))


async def offer(target: Target, workload: str, rate: float, seconds: float, numbers: itertools.count[int],
                timeout: float = 60.0) -> Load:
    """Start ``rate * seconds`` runs at fixed times and wait for them all."""
    load, runs = Load(offered=round(rate * seconds)), []
    cpu, client_cpu = server_cpu(target.pid), time.process_time()
    beside = beside_cpu(target)
    start = time.perf_counter() + 0.01
    for i in range(load.offered):
        scheduled = start + i / rate
        if (wait := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(wait)
        payload = request(target.path, body(workload, next(numbers), target.extra))
        runs.append(asyncio.create_task(_one(target, payload, scheduled, load, timeout)))
    await asyncio.gather(*runs)
    load.cpu = server_cpu(target.pid) - cpu
    load.beside_cpu = beside_cpu(target) - beside
    load.client_cpu = time.process_time() - client_cpu
    for (_reader, writer), _since in target.idle:  # never reuse a connection across windows
        writer.close()
    target.idle.clear()
    return load


async def measure(targets: dict[str, Target], workload: str, rates: list[float], seconds: float,
                  timeout: float, refine: int = 0) -> dict[tuple[float, str], Load]:
    """Every server at every rate, after a short warm-up of each; the order alternates between rates. Then
    ``refine`` rounds of bisection probes (:func:`bisect`), each one ``offer`` like a grid rate."""
    numbers = itertools.count()
    for target in targets.values():
        await offer(target, workload, 10, 1, numbers, timeout)
    loads: dict[tuple[float, str], Load] = {}

    async def one(rate: float, name: str) -> Load:
        load = await offer(targets[name], workload, rate, seconds, numbers, timeout)
        print(f"  {rate:g}/s {name}: {load.done}/{load.offered} runs {dict(load.errors) or ''}", file=sys.stderr)
        return load

    for r, rate in enumerate(rates):
        for name in list(targets) if r % 2 == 0 else list(targets)[::-1]:
            loads[rate, name] = await one(rate, name)
    await bisect(loads, list(targets), refine, one)
    return loads


def _row(rate: float, name: str, load: Load, floor: Load | None) -> str:
    cpu = load.per_run(load.cpu)
    ratio = f"{cpu / floor.per_run(floor.cpu):.2f}x" if floor and floor.done else "-"
    p99 = f"{pct(load.run, 0.99) / pct(floor.run, 0.99):.2f}x" if floor and floor.done and load.done else "-"
    return (f"| {rate:g} | {name} | {cpu * 1e3:.2f} ms | {ratio} | {pct(load.ttfe, 0.5) * 1e3:.0f} ms | "
            f"{pct(load.ttfe, 0.99) * 1e3:.0f} ms | {pct(load.words, 0.5) * 1e3:.0f} ms | "
            f"{pct(load.words, 0.99) * 1e3:.0f} ms | {pct(load.run, 0.5) * 1e3:.0f} ms | "
            f"{pct(load.run, 0.99) * 1e3:.0f} ms | {p99} | {load.done}/{load.offered} | "
            f"{load.chunks / max(load.done, 1):.1f} | "
            f"{pct(load.lag, 0.99) * 1e3:.1f} ms | {load.per_run(load.client_cpu) * 1e3:.2f} ms |")


def report(loads: dict[tuple[float, str], Load], workload: str) -> str:
    """The table, by rate (a refinement's probes among the grid's), each rate's servers in the order measured."""
    lines = [f"Open loop, paced model, workload {workload}: latency from each run's scheduled start",
             "| runs/s | server | CPU/run | x floor | TTFE p50 | TTFE p99 | first words p50 | p99 | run p50 | run p99 "
             "| run p99 x floor | done | writes/run | client lag p99 | client CPU/run |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (rate, name), load in sorted(loads.items(), key=lambda item: item[0][0]):
        lines.append(_row(rate, name, load, loads.get((rate, "floor"))))
    return "\n".join(lines)


TARGETS = ((100.0, "cpu", 1.10), (100.0, "run p99", 1.5))
"""Issue 31's targets, ours against the floor of the same bench: (rate, measure, at most this ratio)."""


def _ratio(load: Load, floor: Load, measure: str) -> float:
    if measure == "cpu":
        return load.per_run(load.cpu) / floor.per_run(floor.cpu)
    return pct(load.run, 0.99) / pct(floor.run, 0.99) if load.done == load.offered else float("inf")


def verdicts(loads: dict[tuple[float, str], Load]) -> list[str]:
    """One line per target whose rate was measured with ours and the floor (a run that failed: not met)."""
    lines = []
    for rate, measure, limit in TARGETS:
        if (rate, "ours") in loads and (rate, "floor") in loads:
            ratio = _ratio(loads[rate, "ours"], loads[rate, "floor"], measure)
            verdict = "met" if ratio <= limit else "NOT met"
            lines.append(f"target: ours' {measure} at {rate:g} runs/s {ratio:.2f}x the floor's (<= {limit}x): "
                         f"{verdict}")
    return lines


HELD = 1.5
"""A rate is held when every run of it was done and its run p50 is at most this times the server's run p50 at the
lowest rate measured (before saturation, the model's pace sets the run's length)."""


def held(loads: dict[tuple[float, str], Load]) -> dict[str, float]:
    """The highest rate each server held (0: none)."""
    out: dict[str, float] = {}
    for name in dict.fromkeys(name for _rate, name in loads):
        rates = sorted(rate for rate, each in loads if each == name)
        base = pct(loads[rates[0], name].run, 0.5)
        out[name] = max((rate for rate in rates if (load := loads[rate, name]).done == load.offered and load.done
                         and pct(load.run, 0.5) <= HELD * base), default=0.0)
    return out


def failed_above(loads: dict[tuple[float, str], Load]) -> dict[str, float | None]:
    """For each server, the lowest rate above the one it held that it did not hold (None: it held every higher
    rate measured, or none was measured)."""
    holds = held(loads)
    return {name: min((rate for rate, each in loads if each == name and rate > holds[name]), default=None)
            for name in holds}


def bracket(loads: dict[tuple[float, str], Load], name: str) -> tuple[float, float] | None:
    """``name``'s saturation rate lies between these two: the highest rate it held and the lowest above it that
    it did not hold; None when there is nothing to bisect (it held none, or no higher rate failed)."""
    low, high = held(loads).get(name, 0.0), failed_above(loads).get(name)
    return (low, high) if low and high is not None else None


def probe_rate(low: float, high: float) -> float | None:
    """The next rate to measure between a held ``low`` and a failed ``high``: their midpoint to a whole run/s,
    None when no whole rate lies strictly between them."""
    mid = float(round((low + high) / 2))
    return mid if low < mid < high else None


async def bisect(loads: dict[tuple[float, str], Load], names: list[str], rounds: int,
                 one: Callable[[float, str], Awaitable[Load]]) -> None:
    """``rounds`` rounds of one probe per server that has a bracket (:func:`bracket`), the order alternating
    between rounds; each probe ``one(rate, name)`` is added to ``loads``, which narrows the bracket."""
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            limits = bracket(loads, name)
            rate = probe_rate(*limits) if limits else None
            if rate is not None:
                loads[rate, name] = await one(rate, name)


def ceiling(loads: dict[tuple[float, str], Load], workers: int, cpus: int) -> float | None:
    """The most ``workers`` workers could hold against one on ``cpus`` CPUs shared with the client and what the
    server uses (Redis), were each run to cost what ``serve x1``'s did at the rate it held: ``c`` its CPU in the
    server, ``o`` beside it (the client's and Redis's). N workers hold at most ``min(N, cpus) / c`` (a CPU each)
    and ``cpus / (c + o)`` (the machine): with ``m = cpus * c / (c + o)``, N against one at most
    ``min(N, cpus, m) / min(1, m)``. A run costs more with more workers (the table says how much), so the
    measured ratio stays below it. None: not measured."""
    rate = held(loads).get("serve x1")
    if not rate or not (load := loads[rate, "serve x1"]).done:
        return None
    c = load.per_run(load.cpu)
    o = load.per_run(load.client_cpu) + load.per_run(load.beside_cpu)
    if c <= 0:
        return None
    machine = cpus * c / (c + o)
    return min(workers, cpus, machine) / min(1.0, machine)


def scaling(loads: dict[tuple[float, str], Load], cpus: int | None = None) -> list[str]:
    """One line per server: the rate it held (and the lowest higher one it failed); a ``serve xN`` server's
    against ``serve x1``'s, with its bounds when both were bracketed, and (``cpus`` given) the most it could be
    on this machine (:func:`ceiling`)."""
    rates, fails = held(loads), failed_above(loads)
    one, one_fail = rates.get("serve x1"), fails.get("serve x1")
    lines = []
    for name, rate in rates.items():
        line = f"holds: {name} {rate:g} runs/s"
        if (fail := fails[name]) is not None:
            line += f" (not {fail:g})"
        if name.startswith("serve x") and name != "serve x1" and one:
            line += f" = {rate / one:.2f}x one worker's"
            if one_fail is not None and fail is not None:
                line += f" (between {rate / one_fail:.2f}x and {fail / one:.2f}x)"
            line += " (issue 31: >= 1.8x with 2 workers)"
            if cpus and (most := ceiling(loads, int(name.removeprefix("serve x")), cpus)) is not None:
                line += f"; at best {most:.2f}x on {cpus} CPUs shared with the client and Redis (at x1's costs)"
        lines.append(line)
    return lines


def serve_command(port: int, workers: int, extra: list[str]) -> list[str]:
    """``strands-agui serve`` of ``bench.apps:served`` with ``workers`` processes and ``extra`` flags."""
    return [sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--app", "bench.apps:served", "--port",
            str(port), "--workers", str(workers), "--log-level", "warning", *extra]


def summary(loads: dict[tuple[float, str], Load]) -> list[dict[str, Any]]:
    """The table as data (``--json``): one record per rate and server, seconds."""
    return [{"rate": rate, "server": name, "offered": load.offered, "done": load.done, "failed": load.failed,
             "errors": dict(load.errors), "cpu_per_run": load.per_run(load.cpu),
             "beside_cpu_per_run": load.per_run(load.beside_cpu),
             "client_cpu_per_run": load.per_run(load.client_cpu), "writes_per_run": load.chunks / max(load.done, 1),
             **{f"{key}_p{q}": pct(values, q / 100) for key, values in
                (("ttfe", load.ttfe), ("words", load.words), ("run", load.run), ("lag", load.lag)) for q in (50, 99)}}
            for (rate, name), load in loads.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rates", default="50,100,150", help="arrival rates, runs/s, comma-separated")
    parser.add_argument("--seconds", type=float, default=20, help="how long each rate's arrivals last")
    parser.add_argument("--servers", default=",".join(SERVERS), help=f"a subset of {','.join(SERVERS)}")
    parser.add_argument("--workload", choices=("chat", "tool"), default="chat")
    parser.add_argument("--timeout", type=float, default=60, help="a run still unfinished after this has failed")
    parser.add_argument("--json", type=Path, help="also write the results here, with the machine's load")
    parser.add_argument("--serve-workers", default="", metavar="N,M",
                        help="also ours under `strands-agui serve --workers N` for each N (servers `serve xN`)")
    parser.add_argument("--serve-args", default="", help="serve's own flags for those, e.g. '--threads'")
    parser.add_argument("--stateful", action="store_true",
                        help="those with threads in files and resumable runs in a redis-server started here")
    parser.add_argument("--refine", type=int, default=0, metavar="K",
                        help="after the rates, K bisection probes per server between the highest rate it held and "
                             "the lowest it did not (0: the rates alone)")
    server_args = server_options(parser)
    opts = parser.parse_args()
    started: list[subprocess.Popen[bytes]] = []
    targets: dict[str, Target] = {}
    with contextlib.ExitStack() as stack:
        extra, beside = shlex.split(opts.serve_args) + ([] if opts.admission else ["--no-admission"]), []
        if opts.stateful and opts.serve_workers:
            from tests.support.redis import redis_server  # redis-server, as the suite starts it

            redis = stack.enter_context(redis_server())
            sessions = stack.enter_context(tempfile.TemporaryDirectory())
            extra += ["--threads", "--sessions", sessions, "--resumable", "--events", redis.url]
            beside = [redis.proc.pid] if redis.proc is not None else []
        try:
            _start(opts, server_args(opts), extra, started, targets, beside)
            load = os.getloadavg()
            rates = [float(rate) for rate in opts.rates.split(",")]
            loads = asyncio.run(measure(targets, opts.workload, rates, opts.seconds, opts.timeout, opts.refine))
        finally:
            for server in started:
                server.terminate()
                server.wait(10)
    _print(opts, loads, load)


def _start(opts: argparse.Namespace, server_args: list[str], extra: list[str], started: list[subprocess.Popen[bytes]],
           targets: dict[str, Target], beside: list[int]) -> None:
    """Start every server the options name (one uvicorn process each; ``serve xN``: N workers, using the processes
    ``beside``, Redis)."""
    for name in [s for s in opts.servers.split(",") if s]:
        port = free_port()
        started.append(start_server(port, [*server_args, "--adapter", name, "--model", "paced"]))
        targets[name] = Target(port, started[-1].pid, f"/{name}/{opts.workload}", keywords(opts.body))
    for workers in [int(n) for n in opts.serve_workers.split(",") if n]:
        port = free_port()
        started.append(start_server(port, command=serve_command(port, workers, extra)))
        targets[f"serve x{workers}"] = Target(port, started[-1].pid, f"/ours/{opts.workload}", keywords(opts.body),
                                              beside=beside)


def _print(opts: argparse.Namespace, loads: dict[tuple[float, str], Load], load: tuple[float, float, float]) -> None:
    print(report(loads, opts.workload))
    print("\n".join(verdicts(loads)))
    if opts.serve_workers:
        print("\n".join(scaling(loads, os.cpu_count())))
    end = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average (1, 5, 15 min) {load[0]:.1f} {load[1]:.1f} "
          f"{load[2]:.1f} at the start, {end[0]:.1f} at the end")
    machine = {"cpus": os.cpu_count(), "load_start": load, "load_end": end}
    if opts.json:
        opts.json.write_text(json.dumps({"machine": machine, "workload": opts.workload, "results": summary(loads),
                                         "holds": held(loads), "fails_above": failed_above(loads),
                                         "scaling": scaling(loads, os.cpu_count()) if opts.serve_workers else []},
                                        indent=1))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
