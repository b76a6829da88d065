"""``make bench`` (HTTP part): strands-agui beside ``ag_ui_strands==1.0.2``, served over loopback, side by side.

Each adapter is served by its own uvicorn process (``bench/apps.py --adapter``), with the same Strands agent
and model, so neither adapter's garbage or heap growth is collected on the other's time (``--shared``: one
process serves both, as before). This process is the load: ``--clients`` keep-alive connections, each
posting runs back to back on new threads. Rounds alternate the adapters (ours first in even rounds, upstream
first in odd ones) and every workload is measured in every round, so both see the same machine conditions even on a
machine whose load drifts.

Per adapter and workload: served runs/s (completed runs / wall time of the round), time to first
event (from writing the request to the first ``data:`` byte), p50 over all runs of all rounds, and the
server process's CPU time per run (user + system, from ``/proc``: on a machine shared with other jobs it
moves less than the wall-clock figures), and this process's own CPU per run and its share of the round's wall
time (the client keeps up when that share is well under one core: it is not what limits the runs/s). Every
response is checked: status 200 and a stream that ends
with RUN_FINISHED.
Not a test: nothing is asserted on time.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

ADAPTERS = ("ours", "upstream")
WORKLOADS = ("chat", "tool")


@dataclass
class Tally:
    runs: int = 0
    seconds: float = 0.0
    cpu: float = 0.0  # server CPU seconds
    client_cpu: float = 0.0  # this process's CPU seconds (the load generator): is the client the bottleneck?
    first_event: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.runs / self.seconds

    @property
    def cpu_per_run(self) -> float:
        return self.cpu / self.runs

    @property
    def ttfe_p50(self) -> float:
        return statistics.median(self.first_event)


def body(workload: str, n: int, extra: dict[str, Any] | None = None) -> bytes:
    """Run ``n``'s RunAgentInput (a new thread), with ``extra`` top-level fields (e.g. ``protocolVersion``)."""
    text = "What is the weather in Paris?" if workload == "tool" else "Tell me something."
    return json.dumps({
        "threadId": f"bench-{workload}-{n}", "runId": f"run-{n}", "state": {}, "tools": [], "context": [],
        "forwardedProps": {}, "messages": [{"id": f"m-{n}", "role": "user", "content": text}], **(extra or {}),
    }).encode()


def request(path: str, body: bytes) -> bytes:
    head = (f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


class Reply(NamedTuple):
    """One run's response as the client saw it (``perf_counter`` times)."""

    first: float  # the first ``data:`` byte
    words: float  # the first ``"delta"``: the model's first words (``*_CONTENT``, ``*_ARGS``, a floor frame)
    end: float  # the end of the response
    chunks: int  # body chunks: the server's writes (one ASGI send each)


async def read_run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, payload: bytes) -> Reply:
    """Post one run on a kept-alive connection and read its chunked body. Raises unless the status is 200
    and the last frame is RUN_FINISHED (a frame is never split over two chunks: every server here writes
    whole frames)."""
    writer.write(payload)
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head.decode(errors="replace"))
    return await read_body(reader)


async def read_body(reader: asyncio.StreamReader) -> Reply:
    """Read a run's chunked body after its 200 head; raises unless its last frame is RUN_FINISHED."""
    first = words = 0.0
    last, chunks = b"", 0
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            break
        if not words:
            now = time.perf_counter()
            first = first or (now if b"data:" in chunk else 0.0)
            words = now if b'"delta"' in chunk else 0.0
        last, chunks = chunk, chunks + 1
    if b'"type":"RUN_FINISHED"' not in last.rsplit(b"data: ", 1)[-1]:
        raise RuntimeError(f"run did not finish: {last!r}")
    return Reply(first, words, time.perf_counter(), chunks)


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` and the processes it started (uvicorn's workers) have used so
    far, while they live (Linux ``/proc``; 0 elsewhere)."""
    return sum(_own_cpu(each) for each in (pid, *descendants(pid)))


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children, theirs, ...), from ``/proc/*/stat``."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def _own_cpu(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _round(port: int, path: str, workload: str, runs: int, clients: int, tally: Tally,
                 pid: int = 0) -> None:
    counter = iter(range(runs))

    async def client() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        try:
            for n in counter:
                start = time.perf_counter()
                reply = await read_run(reader, writer, request(path, body(workload, n)))
                tally.first_event.append(reply.first - start)
                tally.runs += 1
        finally:
            writer.close()

    start, cpu, own = time.perf_counter(), server_cpu(pid), time.process_time()
    await asyncio.gather(*(client() for _ in range(clients)))
    tally.seconds += time.perf_counter() - start
    tally.cpu += server_cpu(pid) - cpu
    tally.client_cpu += time.process_time() - own


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


Server = tuple[int, int]  # (port, pid)


def start_server(port: int, args: Sequence[str] = (), command: Sequence[str] | None = None,
                 stderr: Any = None) -> subprocess.Popen[bytes]:
    """``python -m bench.apps --port port *args`` (or ``command``, serving on ``port``), once it answers
    ``GET /ping``; ``stderr``: where its log goes (default: this process's)."""
    server = subprocess.Popen(command or [sys.executable, "-m", "bench.apps", "--port", str(port), *args],
                              stderr=stderr)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(b"GET /ping HTTP/1.1\r\nHost: bench\r\n\r\n")
                if conn.recv(100).startswith(b"HTTP/1.1 200"):
                    return server
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            raise RuntimeError("the bench server did not start")
        time.sleep(0.2)


def keywords(items: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` items as keyword arguments: VALUE as JSON, ``@module:name`` an imported object, or else
    the string itself (``coalesce_seconds=0``, ``settings=@mymodule:SETTINGS``, ``name=x``; a string that
    reads as JSON needs its quotes: ``protocolVersion='"1.0"'``)."""
    found: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"expected KEY=VALUE, got {item!r}")
        if value.startswith("@"):
            module, _, name = value[1:].partition(":")
            found[key] = getattr(importlib.import_module(module), name)
            continue
        try:
            found[key] = json.loads(value)
        except ValueError:
            found[key] = value
    return found


def server_options(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], list[str]]:
    """Add our server's settings to a load generator's ``parser``; the returned function turns the parsed
    options into the ``bench.apps`` arguments that carry them (see ``bench.apps.keywords``)."""
    parser.add_argument("--coalesce", type=float, default=None,
                        help="our endpoint's coalesce_seconds (default: the library's default)")
    parser.add_argument("--endpoint", action="append", default=[], metavar="KEY=VALUE",
                        help="a keyword of our add_strands_fastapi_endpoint: JSON, @module:name, or a string")
    parser.add_argument("--agent", action="append", default=[], metavar="KEY=VALUE",
                        help="a keyword of our StrandsAgent (the same forms)")
    parser.add_argument("--body", action="append", default=[], metavar="KEY=VALUE",
                        help="a top-level field added to every request body (open loop and profile), e.g. "
                             "protocolVersion='\"1.0\"' (the same forms)")
    parser.add_argument("--admission", action="store_true",
                        help="serve ours with admission control on, the library's default; off here otherwise: "
                             "these parts measure what a run costs and the rate a server holds, and the runs it "
                             "would shed past that rate would count as failed (bench.overload measures shedding)")

    def arguments(opts: argparse.Namespace) -> list[str]:
        items = [] if opts.coalesce is None else [f"coalesce_seconds={opts.coalesce}"]
        if not opts.admission and not any(item.startswith("admission=") for item in opts.endpoint):
            items.append("admission=null")
        extra = [arg for item in items + opts.endpoint for arg in ("--endpoint", item)]
        return extra + [arg for item in opts.agent for arg in ("--agent", item)]

    return arguments


async def measure(servers: dict[str, Server], rounds: int, runs: int, clients: int) -> dict[tuple[str, str], Tally]:
    """``servers``: adapter -> (port, pid) of the process serving it (one process may serve both)."""
    tallies = {(a, w): Tally() for a in ADAPTERS for w in WORKLOADS}
    for workload in WORKLOADS:  # warm-up: imports, caches, first connections
        for adapter in ADAPTERS:
            await _round(servers[adapter][0], f"/{adapter}/{workload}", workload, clients, clients, Tally())
    for r in range(rounds):
        order = ADAPTERS if r % 2 == 0 else ADAPTERS[::-1]
        for workload in WORKLOADS:
            for adapter in order:
                port, pid = servers[adapter]
                await _round(port, f"/{adapter}/{workload}", workload, runs, clients, tallies[adapter, workload], pid)
        print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
    return tallies


def report(tallies: dict[tuple[str, str], Tally], clients: int) -> str:
    lines = [f"HTTP, {clients} concurrent clients over loopback (runs/s higher is better, TTFE lower)",
             "| workload | ours runs/s | upstream runs/s | ratio | ours TTFE p50 | upstream TTFE p50 | ratio "
             "| ours CPU/run | upstream CPU/run | ratio | client CPU/run: ours, upstream "
             "| client busy: ours, upstream |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for w in WORKLOADS:
        ours, up = tallies["ours", w], tallies["upstream", w]
        lines.append(f"| {w} | {ours.rate:.0f} | {up.rate:.0f} | {ours.rate / up.rate:.2f}x | "
                     f"{ours.ttfe_p50 * 1e3:.1f} ms | {up.ttfe_p50 * 1e3:.1f} ms | "
                     f"{ours.ttfe_p50 / up.ttfe_p50:.2f}x | {ours.cpu_per_run * 1e3:.2f} ms | "
                     f"{up.cpu_per_run * 1e3:.2f} ms | {ours.cpu_per_run / up.cpu_per_run:.2f}x | "
                     f"{ours.client_cpu / ours.runs * 1e3:.2f}, {up.client_cpu / up.runs * 1e3:.2f} ms | "
                     f"{ours.client_cpu / ours.seconds:.0%}, {up.client_cpu / up.seconds:.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--runs", type=int, default=768, help="runs per adapter, workload and round")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--shared", action="store_true",
                        help="serve both adapters from one process (default: one process each)")
    server_args = server_options(parser)
    opts = parser.parse_args()
    started: list[subprocess.Popen[bytes]] = []
    servers: dict[str, Server] = {}
    try:
        for adapter in (None,) if opts.shared else ADAPTERS:
            port = free_port()
            server = start_server(port, server_args(opts) + ([] if adapter is None else ["--adapter", adapter]))
            started.append(server)
            for served in ADAPTERS if adapter is None else (adapter,):
                servers[served] = (port, server.pid)
        load = os.getloadavg()[0]
        tallies = asyncio.run(measure(servers, opts.rounds, opts.runs, opts.clients))
    finally:
        for server in started:
            server.terminate()
            server.wait(10)
    print(report(tallies, opts.clients))
    print("servers: " + ("one process for both adapters (--shared)" if opts.shared else "one process per adapter"))
    print(f"machine: {os.cpu_count()} CPUs, 1-minute load average {load:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
