"""``make bench`` (instructions part): what a run costs, counted in machine instructions, so that two versions can
be compared on a shared machine.

CPU time moves with the machine's load (another process's cache traffic, a preempted request, frequency); the
number of instructions a run executes does not. Each server of ``bench/apps.py`` (ours, upstream, the floor) is
driven here in process, without sockets: ``--runs`` runs one after another through its ASGI app on the yielding
model, after ``WARM_UP`` runs, under valgrind's callgrind with instrumentation switched on only for the measured
runs (``callgrind_control -i on``), so imports, start-up and warm-up are not counted. Printed: millions of
instructions per run for each server and workload, and ours against the floor and upstream; with two answer
lengths (``--deltas 1,40``), a chat run as a fixed part and a part per text delta for each server, and what 1.10x
the floor's run leaves ours for its fixed part were its deltas to cost what the floor's do (issue 31's target).
Repeated runs agree within about 0.2%, whatever else the machine is doing.

What it does not count: the socket path (uvicorn, h11, the ``send`` syscalls: ours writes fewer frames than the
floor and upstream, which the served parts measure), waiting on the loop, and cache misses. The pacer decides
by wall time, and under valgrind a run is about 50x slower, so ours takes more loop turns here than when served
(each turn a few thousand instructions). So it is for A/B comparisons of one change, not a substitute for the open
loop. Needs ``valgrind`` (Debian's package); ``--child`` is the measured process itself.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from bench.apps import CHAT_DELTAS
from bench.http import ADAPTERS, WORKLOADS, body

SERVERS = (*ADAPTERS, "floor")
WARM_UP = 20
COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


async def run_once(app: Any, path: str, payload: bytes, watch: Callable[[dict[str, Any]], None] | None = None) -> bytes:
    """One run through ``app`` as uvicorn would call it; the response body, checked to end with RUN_FINISHED.
    ``watch`` sees each message the app sends, before it is kept."""
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": payload, "more_body": False}
        await asyncio.Event().wait()  # the client stays: no disconnect
        raise AssertionError("unreachable")

    chunks: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        if watch is not None:
            watch(message)
        if message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    headers = [(b"content-type", b"application/json"), (b"accept", b"text/event-stream"),
               (b"content-length", str(len(payload)).encode())]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
    await app(scope, receive, send)
    data = b"".join(chunks)
    if b'"type":"RUN_FINISHED"' not in data.rsplit(b"data: ", 1)[-1]:
        raise RuntimeError(f"{path}: the run did not finish: {data[-200:]!r}")
    return data


def _instrument(on: bool) -> None:
    subprocess.run(["callgrind_control", f"--instr={'on' if on else 'off'}", str(os.getpid())], check=True,
                   stdout=subprocess.DEVNULL)


UNTIL = {"start": "http.response.start", "first": "http.response.body"}
"""``--until``: what ends the counted span of each run: the response's start, or its first body (our RUN_STARTED;
the floor's first delta)."""


async def child(server: str, workload: str, runs: int, instrument: bool, deltas: int = CHAT_DELTAS,
                until: str = "") -> None:
    """The measured process: warm up, then ``runs`` runs with callgrind's instrumentation on (``deltas``: the chat
    answer's text deltas). With ``until`` (:data:`UNTIL`), only each run's span from its request to that message
    is counted (instrumentation switched on and off around it, run by run); ``until="toggles"`` counts the
    switching alone, which :func:`measure` subtracts."""
    from bench.apps import create_app

    app = create_app((server,), "yielding", deltas=deltas)
    path = f"/{server}/{workload}"
    ends = UNTIL.get(until)
    counting = False  # a run's span is being counted

    def watch(message: dict[str, Any]) -> None:
        nonlocal counting
        if counting and message["type"] == ends:
            counting = False
            _instrument(False)

    async with app.router.lifespan_context(app):
        for n in range(WARM_UP):
            await run_once(app, path, body(workload, n))
        gc.collect()
        gc.freeze()  # as our endpoint does after startup; the same for every server here
        if not until:
            if instrument:
                _instrument(True)
            for n in range(runs):
                await run_once(app, path, body(workload, WARM_UP + n))
            if instrument:
                _instrument(False)
            return
        for n in range(runs):
            counting = instrument and ends is not None
            if instrument:
                _instrument(True)
                if ends is None:  # the switching alone
                    _instrument(False)
            await run_once(app, path, body(workload, WARM_UP + n), watch)


def collected(valgrind_output: str) -> int:
    """The instructions callgrind counted, from its summary on stderr."""
    found = COLLECTED.findall(valgrind_output)
    if not found:
        raise RuntimeError(f"no callgrind summary in the output:\n{valgrind_output[-2000:]}")
    return int(found[-1])


def measure(server: str, workload: str, runs: int, deltas: int = CHAT_DELTAS, until: str = "") -> float:
    """Instructions per run of ``server`` on ``workload`` (a valgrind process of its own); with ``until``, per
    run's span up to that message (:data:`UNTIL`), the switching of the instrumentation subtracted."""
    def count(span: str) -> int:
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null",
                   sys.executable, "-m", "bench.instructions", "--child", server, workload, str(runs), str(deltas),
                   span or "-"]
        done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        if done.returncode != 0:
            raise RuntimeError(f"{server}/{workload} failed ({done.returncode}):\n{done.stderr[-2000:]}")
        return collected(done.stderr)

    total = count(until)
    return (total - count("toggles") if until else total) / runs


def report(counts: dict[tuple[str, str], float]) -> str:
    servers = [s for s in SERVERS if any(key[0] == s for key in counts)]
    lines = ["Instructions per run (millions; in process, yielding model, valgrind callgrind)",
             "| workload | " + " | ".join(servers) + " | ours x floor | ours x upstream |",
             "|---|" + "---:|" * (len(servers) + 2)]
    for workload in WORKLOADS:
        row = {s: counts.get((s, workload)) for s in servers}
        if not any(row.values()):
            continue
        ours, floor, upstream = row.get("ours"), row.get("floor"), row.get("upstream")
        ratio = [f"{ours / other:.2f}x" if ours and other else "-" for other in (floor, upstream)]
        lines.append(f"| {workload} | " + " | ".join(f"{v / 1e6:.2f}" if v else "-" for v in row.values())
                     + f" | {ratio[0]} | {ratio[1]} |")
    return "\n".join(lines)


def split(counts: dict[tuple[str, int], float], target: float = 1.10) -> str:
    """A chat run's instructions as a fixed part and a part per text delta, from runs of two answer lengths
    (``counts``: (server, deltas) -> instructions per run); then what ``target`` x the floor's run at the longer
    length leaves ours for its fixed part, were each of its deltas to cost no more than the floor's."""
    lengths = sorted({deltas for _, deltas in counts})
    if len(lengths) < 2:
        return ""
    short, long = lengths[0], lengths[-1]
    lines = [f"A chat run's instructions: fixed + per text delta (from {short} and {long} deltas; thousands)",
             "| server | fixed | per delta |", "|---|---:|---:|"]
    parts: dict[str, tuple[float, float]] = {}
    for server in [s for s in SERVERS if (s, short) in counts and (s, long) in counts]:
        per = (counts[server, long] - counts[server, short]) / (long - short)
        parts[server] = (counts[server, short] - short * per, per)
        lines.append(f"| {server} | {parts[server][0] / 1e3:,.0f} | {per / 1e3:,.1f} |")
    if "ours" in parts and "floor" in parts:
        (ours_fixed, ours_per), (floor_fixed, floor_per) = parts["ours"], parts["floor"]
        budget = target * (floor_fixed + long * floor_per)
        left = budget - long * floor_per
        lines.append(f"{target:.2f}x the floor's {long}-delta run: {budget / 1e6:.2f} M; at the floor's cost per "
                     f"delta it leaves ours {left / 1e6:.2f} M for its fixed part ({(left - floor_fixed) / 1e6:.2f} M "
                     f"over the floor's); ours' is {ours_fixed / 1e6:.2f} M ({(ours_fixed - floor_fixed) / 1e6:.2f} M "
                     f"over), and {ours_per / 1e3:.1f} k per delta against {floor_per / 1e3:.1f} k")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default=",".join(SERVERS), help=f"a subset of {','.join(SERVERS)}")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--runs", type=int, default=20, help="measured runs per server and workload")
    parser.add_argument("--deltas", default=str(CHAT_DELTAS), metavar="N[,M]",
                        help="the chat answer's text deltas; two lengths (e.g. 1,40) also print the chat run as a "
                             "fixed part and a part per delta, and what 1.10x the floor leaves ours")
    parser.add_argument("--until", choices=sorted(UNTIL), default="",
                        help="count each run only from its request to its response's start, or to its first body")
    parser.add_argument("--child", nargs=5, metavar=("SERVER", "WORKLOAD", "RUNS", "DELTAS", "UNTIL"),
                        help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        server, workload, runs, deltas, until = opts.child
        asyncio.run(child(server, workload, int(runs), instrument=True, deltas=int(deltas),
                          until="" if until == "-" else until))
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("bench.instructions needs valgrind (Debian: apt-get install valgrind)")
    servers = [s for s in opts.servers.split(",") if s]
    lengths = [int(n) for n in opts.deltas.split(",") if n]
    counts = {(s, w): measure(s, w, opts.runs, lengths[-1], opts.until) for w in opts.workloads.split(",") if w
              for s in servers}
    print(report(counts) if not opts.until else
          report(counts).replace("Instructions per run", "Instructions from a request to "
                                 + {"start": "its response's start", "first": "its first body"}[opts.until], 1))
    if len(lengths) > 1 and "chat" in opts.workloads.split(",") and not opts.until:
        chat = {(s, lengths[-1]): counts[s, "chat"] for s in servers}
        chat.update({(s, lengths[0]): measure(s, "chat", opts.runs, lengths[0]) for s in servers})
        print(split(chat))


if __name__ == "__main__":
    main()
