"""``make bench`` (overload): past saturation, what each server still serves; ours sheds what it cannot serve.

Each server runs on the paced model (``bench/apps.py``) as in ``bench.openloop``, and the load is that bench's open
loop (runs start at ``start + i / rate`` whatever became of the earlier ones; latency from each run's scheduled
start). Per server, in turn:

1. **unloaded**: ``BASE_RATE`` runs/s for ``BASE_SECONDS``: its run p50 and p99 unloaded;
2. **held**: the rate it holds (``bench.openloop.held``'s rule: every run done, run p50 within ``HELD`` x its
   unloaded p50), found with ``--probe-seconds`` (8) windows: from ``--start`` doubling until a rate fails, then
   ``--refine`` (4) bisections (``bench.openloop.probe_rate``: within 1/16 of the bracket; with 2, the held rate
   could sit a quarter of a bracket below what the server holds, and the goodput against it read high); a probe is
   half an overload window long, so a backlog that builds slowly at a rate just past the held one shows in it;
3. **2x and 4x** that rate (``--multiples``) offered for ``--seconds`` (15) each.

A run answered 503 (or 429) is **refused** (its answer's time counted from its scheduled start), one answered 200
that did not end in RUN_FINISHED within ``--timeout`` (10 s) **failed after it was accepted**; one that got no answer
in time (or another status) is **unanswered**. For each overload window: **goodput** (runs served complete per second
of arrivals) against the held rate, the served runs' p99 against the unloaded p99, the refusals' p99, the share of
accepted runs that failed, and (``--stateful``) the server log's ``events no longer stored`` lines (an accepted
resumable run that lost its events); and the cores the server kept busy, beside those of the client and Redis (on a
machine with few cores they share them: the client's work grows with the rate offered, the workers' cores shrink).
The issue's targets: goodput >= 0.9x held, served p99 <= 2x unloaded, refused p99 <= 100 ms, failed after accepted
<= 1%, no events lost; a verdict per row.

Servers: ``serve x1``, ``serve x2`` (``strands-agui serve --app bench.apps:served --workers N``, admission control on
by default), ``upstream`` (``ag_ui_strands==1.0.2``) and ``floor`` (no adapter), one uvicorn process each;
``ours`` is ours in one process (``bench.apps``), ``ours off`` the same with ``admission=None``. The rate a server
that sheds holds (``serve xN``, ``ours``) is measured on the same server with admission control off (a process of its
own, then stopped): its capacity, which shedding is to keep its goodput near. ``--stateful``: the ``serve`` servers
with threads in files and resumable runs in a redis-server started here (``bench.openloop``'s). ``--limit N``: each
``serve`` worker admits at most N runs in flight and learns no limit (``AdmissionPolicy(adaptive=False)``), with
``--held`` the held rate measured before: the frontier a learned limit is measured against. Not a test: nothing
is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.http import body, free_port, read_body, request, server_cpu, start_server
from bench.openloop import HELD, Target, _idle_connection, beside_cpu, pct, probe_rate, serve_command

BASE_RATE = 20.0
BASE_SECONDS = 3.0
LOST = b"events no longer stored"
SERVERS = ("serve x1", "serve x2", "upstream", "floor")
NUMBERS = itertools.count()
TARGET_GOODPUT, TARGET_P99, TARGET_REFUSED, TARGET_FAILED = 0.9, 2.0, 0.100, 0.01


@dataclass
class Window:
    """One server's runs at one rate."""

    rate: float
    offered: int = 0
    run: list[float] = field(default_factory=list)  # served runs' times (s from the scheduled start)
    refused: list[float] = field(default_factory=list)  # 503 answers' times
    accepted_failed: int = 0  # 200, then no RUN_FINISHED in time
    unanswered: int = 0  # no status line in time, the connection failed, or a status but 200, 429 and 503
    lost: int = 0  # ``events no longer stored`` lines in the server's log over the window
    lag: list[float] = field(default_factory=list)  # the client's own lag: scheduled start -> request written
    seconds: float = 0.0  # wall time from the first arrival to the last (not the answers after it: a tail the
    # server spends finishing runs with nothing arriving would read as cores it left idle)
    cpu: float = 0.0  # the server's CPU seconds (its workers') over it
    beside_cpu: float = 0.0  # Redis's (``Target.beside``)
    client_cpu: float = 0.0  # this client's

    def cores(self, cpu: float) -> float:
        """CPU seconds over the window as the cores they kept busy."""
        return cpu / self.seconds if self.seconds else 0.0

    @property
    def done(self) -> int:
        return len(self.run)

    @property
    def accepted(self) -> int:
        return self.done + self.accepted_failed


async def _one(target: Target, payload: bytes, scheduled: float, window: Window, timeout: float) -> None:
    """One run, on an idle kept-alive connection or a new one (``bench.openloop``'s), sorted into ``window`` by how
    it ended; the connection is kept for another run after a whole answer (a run's, or a refusal's)."""
    answered, conn = False, None
    deadline = asyncio.get_running_loop().time() + (scheduled + timeout - time.perf_counter())
    try:
        async with asyncio.timeout_at(deadline):
            conn = _idle_connection(target) or await asyncio.open_connection("127.0.0.1", target.port)
            reader, writer = conn
            writer.write(payload)
            window.lag.append(time.perf_counter() - scheduled)
            head = await reader.readuntil(b"\r\n\r\n")
            answered = True
            if head.startswith((b"HTTP/1.1 503", b"HTTP/1.1 429")):
                window.refused.append(time.perf_counter() - scheduled)
                await reader.readexactly(_length(head))
            elif not head.startswith(b"HTTP/1.1 200"):
                answered = False  # refused for another reason than load: not a run that was accepted
                raise RuntimeError(head[:40].decode(errors="replace"))
            else:
                await read_body(reader)
                window.run.append(time.perf_counter() - scheduled)
            if b"connection: close" in head.lower():  # a refusal's: the retry comes on a new connection
                writer.close()
            else:
                target.idle.append((conn, time.perf_counter()))
    except (TimeoutError, RuntimeError, ValueError, asyncio.IncompleteReadError, OSError):
        if answered:
            window.accepted_failed += 1
        else:
            window.unanswered += 1
        if conn is not None:
            conn[1].close()


def _length(head: bytes) -> int:
    for line in head.lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 0


async def offer(target: Target, rate: float, seconds: float, numbers: itertools.count[int], timeout: float,
                log: Path | None = None) -> Window:
    """``rate * seconds`` runs at fixed times; wait for them all."""
    window, runs = Window(rate, offered=round(rate * seconds)), []
    lost = log.read_bytes().count(LOST) if log is not None else 0
    cpu, beside, client = server_cpu(target.pid), beside_cpu(target), time.process_time()
    start = time.perf_counter() + 0.01
    for i in range(window.offered):
        scheduled = start + i / rate
        if (wait := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(wait)
        payload = request(target.path, body("chat", next(numbers), target.extra))
        runs.append(asyncio.create_task(_one(target, payload, scheduled, window, timeout)))
    window.seconds = time.perf_counter() - start
    window.cpu, window.beside_cpu = server_cpu(target.pid) - cpu, beside_cpu(target) - beside
    window.client_cpu = time.process_time() - client
    await asyncio.gather(*runs)
    for (_reader, writer), _since in target.idle:  # never reuse a connection across windows
        writer.close()
    target.idle.clear()
    if log is not None:
        window.lost = log.read_bytes().count(LOST) - lost
    return window


def holds(window: Window, unloaded: Window) -> bool:
    return window.done == window.offered > 0 and pct(window.run, 0.5) <= HELD * pct(unloaded.run, 0.5)


async def find_held(target: Target, opts: argparse.Namespace, numbers: itertools.count[int],
                    unloaded: Window) -> tuple[float, Window | None]:
    """The highest rate held: from ``--start``, doubling while one holds (or halving while one fails, down to
    ``BASE_RATE``), then ``--refine`` bisections between the highest held and the lowest failed; with the window
    that held it."""
    low, high, rate, kept = 0.0, None, opts.start, None
    while rate <= opts.most and rate >= BASE_RATE:
        window = await offer(target, rate, opts.probe_seconds, numbers, opts.timeout)
        print(f"    {rate:g}/s: {window.done}/{window.offered}, refused {len(window.refused)}, failed "
              f"{window.accepted_failed}, unanswered {window.unanswered}, p50 {pct(window.run, 0.5) * 1e3:.0f} ms, "
              f"client lag p99 {pct(window.lag, 0.99) * 1e3:.0f} ms", file=sys.stderr)
        if holds(window, unloaded):
            low, kept = rate, window
            if high is not None:
                break
            rate *= 2
        else:
            high = rate
            if low:
                break
            rate /= 2
    for _ in range(opts.refine if high is not None and low else 0):
        mid = probe_rate(low, high) if high is not None else None
        if mid is None:
            break
        window = await offer(target, mid, opts.probe_seconds, numbers, opts.timeout)
        print(f"    {mid:g}/s: {window.done}/{window.offered}", file=sys.stderr)
        if holds(window, unloaded):
            low, kept = mid, window
        else:
            high = mid
    return low, kept


async def measure(name: str, target: Target, opts: argparse.Namespace, log: Path | None,
                  held: float | None = None) -> dict[str, Any]:
    """The unloaded window and the held rate (``held`` None: found), then the overload windows (``held`` given)."""
    numbers = NUMBERS  # every run of the bench a thread and run id of its own: the servers share Redis and files
    await offer(target, 10, 1, numbers, opts.timeout)  # warm-up
    unloaded = await offer(target, BASE_RATE, BASE_SECONDS, numbers, opts.timeout)
    if held is None:
        held, kept = (opts.held, None) if opts.held else await find_held(target, opts, numbers, unloaded)
        cores = (f" on {kept.cores(kept.cpu):.2f} server cores (client + Redis "
                 f"{kept.cores(kept.client_cpu + kept.beside_cpu):.2f})" if kept is not None else "")
        print(f"  {name}: holds {held:g} runs/s{cores} (unloaded p99 {pct(unloaded.run, 0.99) * 1e3:.0f} ms)",
              file=sys.stderr)
        return {"held": held, "unloaded": unloaded, "windows": [], "kept": kept}
    windows = []
    for multiple in opts.multiples:
        if held:
            await asyncio.sleep(1)  # the last window's stragglers are gone
            window = await offer(target, held * multiple, opts.seconds, numbers, opts.timeout, log)
            print(f"  {name} {multiple:g}x: {window.done}/{window.offered}, refused {len(window.refused)}, failed "
                  f"{window.accepted_failed}, unanswered {window.unanswered}", file=sys.stderr)
            windows.append((multiple, window))
    return {"held": held, "unloaded": unloaded, "windows": windows}


def row(name: str, result: dict[str, Any], multiple: float, window: Window, seconds: float) -> str:
    held, unloaded = result["held"], result["unloaded"]
    goodput = window.done / seconds
    p99, base = pct(window.run, 0.99), pct(unloaded.run, 0.99)
    failed = window.accepted_failed / max(window.accepted, 1)
    refused_p99 = pct(window.refused, 0.99)
    met = (goodput >= TARGET_GOODPUT * held and window.done and p99 <= TARGET_P99 * base
           and (not window.refused or refused_p99 <= TARGET_REFUSED) and failed <= TARGET_FAILED
           and not window.lost and not window.unanswered)
    return (f"| {name} | {held:g} | {base * 1e3:.0f} ms | {multiple:g}x ({window.rate:g}/s) | {goodput:.0f} | "
            f"{goodput / held:.2f}x | {p99 * 1e3:.0f} ms | {p99 / base:.2f}x | {len(window.refused)} | "
            f"{refused_p99 * 1e3:.0f} ms | {window.accepted_failed}/{window.accepted} ({failed:.1%}) | "
            f"{window.unanswered} | {window.lost} | {pct(window.lag, 0.99) * 1e3:.0f} ms | "
            f"{window.cores(window.cpu):.2f} | {window.cores(window.client_cpu + window.beside_cpu):.2f} | "
            f"{'met' if met else 'NOT met'} |")


def report(results: dict[str, dict[str, Any]], seconds: float, title: str) -> str:
    lines = [f"Overload ({title}): each server's held rate, then multiples of it offered for {seconds:g} s",
             "| server | holds runs/s | unloaded p99 | offered | goodput runs/s | x held | served p99 | x unloaded "
             "| refused | refused p99 | failed after accepted | unanswered | events lost | client lag p99 "
             "| server cores | client + Redis cores | targets |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, result in results.items():
        for multiple, window in result["windows"]:
            lines.append(row(name, result, multiple, window, seconds))
        if not result["windows"]:
            lines.append(f"| {name} | 0 | - | - | - | - | - | - | - | - | - | - | - | - | - | - | no rate held |")
    return "\n".join(lines)


def _sheds(name: str) -> bool:
    return name.startswith("serve x") or name == "ours"


def _start(name: str, opts: argparse.Namespace, extra: list[str], stack: contextlib.ExitStack,
           beside: list[int], shedding: bool = True) -> tuple[Target, Path]:
    """Start ``name`` (``shedding=False``: ours with admission control off) on a free port, its log in a file."""
    port = free_port()
    log = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "server.log"
    stream = stack.enter_context(log.open("wb"))
    if name.startswith("serve x"):
        command = serve_command(port, int(name.removeprefix("serve x")), extra)
        admission = (f"fixed:{opts.limit}" if getattr(opts, "limit", 0) else "on") if shedding else "off"
        os.environ["BENCH_ADMISSION"] = admission  # read by each worker's bench.apps:served
        server = start_server(port, command=command, stderr=stream)
        path = "/ours/chat"
    else:
        adapter = "ours" if name == "ours off" else name
        off = name == "ours off" or (name == "ours" and not shedding)
        args = ["--adapter", adapter, "--model", "paced", *(["--endpoint", "admission=null"] if off else [])]
        server = start_server(port, args, stderr=stream)
        path = f"/{adapter}/chat"
    stack.callback(_stop, server)
    return Target(port, server.pid, path, beside=beside), log


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default=",".join(SERVERS), help="of: serve xN, upstream, floor, ours off")
    parser.add_argument("--stateful", action="store_true", help="the serve servers with threads and Redis")
    parser.add_argument("--seconds", type=float, default=15, help="how long each overload window's arrivals last")
    parser.add_argument("--multiples", default="2,4", help="the held rate's multiples offered")
    parser.add_argument("--probe-seconds", type=float, default=8, help="a held-rate probe's arrivals")
    parser.add_argument("--start", type=float, default=50, help="the first held-rate probe, runs/s")
    parser.add_argument("--most", type=float, default=1600, help="the highest held-rate probe")
    parser.add_argument("--refine", type=int, default=4, help="bisections of the held rate")
    parser.add_argument("--held", type=float, default=0, help="take this as every server's held rate (0: find it)")
    parser.add_argument("--timeout", type=float, default=10, help="a run unfinished after this has failed")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--limit", type=int, default=0, help="each serve worker's runs in flight fixed at this, "
                        "none learned (0: the learned limit): the frontier a learned limit is measured against")
    opts = parser.parse_args()
    opts.multiples = [float(m) for m in opts.multiples.split(",")]
    load = os.getloadavg()
    results: dict[str, dict[str, Any]] = {}
    with contextlib.ExitStack() as stack:
        extra, beside = [], []
        if opts.stateful:
            from tests.support.redis import redis_server  # redis-server, as the suite starts it

            redis = stack.enter_context(redis_server())
            sessions = stack.enter_context(tempfile.TemporaryDirectory())
            extra = ["--threads", "--sessions", sessions, "--resumable", "--events", redis.url]
            beside = [redis.proc.pid] if redis.proc is not None else []
        for name in [s.strip() for s in opts.servers.split(",") if s.strip()]:
            server_extra = extra if name.startswith("serve") else []
            found, kept = None, None
            if _sheds(name) and not opts.held:  # what it holds is measured without shedding: its capacity
                with contextlib.ExitStack() as one:
                    target, _log = _start(name, opts, server_extra, one, beside, shedding=False)
                    probed = asyncio.run(measure(name, target, opts, None))
                    found, kept = probed["held"], probed["kept"]
            with contextlib.ExitStack() as one:
                target, log = _start(name, opts, server_extra, one, beside)
                if found is None:
                    probed = asyncio.run(measure(name, target, opts, None))
                    found, kept = probed["held"], probed["kept"]
                results[name] = asyncio.run(measure(name, target, opts, log if opts.stateful else None, found))
                results[name]["kept"] = kept
    end = os.getloadavg()
    title = "stateful: threads in files, runs in Redis" if opts.stateful else "stateless"
    print(report(results, opts.seconds, title + (f"; serve's limit fixed at {opts.limit}" if opts.limit else "")))
    print(f"machine: {os.cpu_count()} CPUs, load average (1, 5, 15 min) {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at "
          f"the start, {end[0]:.1f} at the end")
    if opts.json:
        opts.json.write_text(json.dumps({"machine": {"cpus": os.cpu_count(), "load_start": load, "load_end": end},
                                         "results": _data(results)}, indent=1))


def _data(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {name: {"held": r["held"], "unloaded_p99": pct(r["unloaded"].run, 0.99),
                   "held_cores": _cores(r["kept"]),
                   "windows": [{"multiple": m, "rate": w.rate, "offered": w.offered, "done": w.done, **_cores(w),
                                "refused": len(w.refused), "refused_p99": pct(w.refused, 0.99),
                                "run_p99": pct(w.run, 0.99), "accepted_failed": w.accepted_failed,
                                "unanswered": w.unanswered, "lost": w.lost} for m, w in r["windows"]]}
            for name, r in results.items()}


def _cores(window: Window | None) -> dict[str, float]:
    if window is None:
        return {}
    return {"server_cores": window.cores(window.cpu), "client_cores": window.cores(window.client_cpu),
            "redis_cores": window.cores(window.beside_cpu)}


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
