"""What one refusal for load costs the worker, against a bare asyncio server answering the same 503.

``python -m bench.refusals`` starts ``strands-agui serve --app bench.apps:served --max-runs 1`` (admission control
on) and holds its one place with a run whose body never finishes arriving (the route takes the place before it
reads the body), so every run offered after it is refused by ``serve``'s early refusal (``early_refusal.py``). Then
``--rate`` runs a second for ``--seconds`` in ``bench.overload``'s open loop (each on an idle kept-alive connection
or a new one, as past saturation), and the worker's CPU over the window (``/proc``, user and system) divided by the
refusals. The same load on a bare asyncio server in a process of its own, answering every request with a 503 of
the same size: what any asyncio server pays per request arriving alone (the loop's wake-up, the socket's read and
write), which no code of ours can cut. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

from bench.http import body, free_port, request, server_cpu, start_server
from bench.openloop import Target, serve_command
from bench.overload import _stop, offer

BARE = r"""
import asyncio, sys
BODY = b'{"detail":{"code":"OVERLOADED","cause":"runs_in_flight","limit":1,"inFlight":1,"message":"this worker is ' \
       b'serving 1 runs, as many as it can serve at their normal latency now (limit 1): retry after 1 s; nothing ' \
       b'was started"}}'
ANSWER = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
          b"content-length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)

class Refusing(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer = transport, b""

    def data_received(self, data):
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, rest = self.buffer.split(b"\r\n\r\n", 1)
            length = next((int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                           if line.startswith(b"content-length:")), 0)
            if len(rest) < length:
                return
            self.buffer = rest[length:]
            if head.startswith(b"GET /ping"):
                self.transport.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            else:
                self.transport.write(ANSWER)

async def main():
    server = await asyncio.get_running_loop().create_server(Refusing, "127.0.0.1", int(sys.argv[1]))
    await server.serve_forever()

asyncio.run(main())
"""


@contextlib.contextmanager
def _served(command: list[str], port: int, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    before = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        server = start_server(port, command=command)
    finally:  # the server has read its environment: this process's is as it was
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    try:
        yield server
    finally:
        _stop(server)


def _hold(port: int, path: str) -> socket.socket:
    """A run whose body is still arriving: admitted, its place held until its connection closes."""
    held = socket.create_connection(("127.0.0.1", port))
    payload = request(path, body("chat", 0))
    head, _, rest = payload.partition(b"\r\n\r\n")
    held.sendall(head + b"\r\n\r\n" + rest[:10])  # the rest never comes
    time.sleep(0.5)
    return held


def _window(port: int, path: str, pid: int, rate: float, seconds: float) -> tuple[int, int, float]:
    """(refused, served, the server's CPU seconds) for ``rate`` runs a second over ``seconds``."""
    target = Target(port, pid, path)
    before = server_cpu(pid)
    window = asyncio.run(offer(target, rate, seconds, itertools.count(1), 10))
    return len(window.refused), window.done, server_cpu(pid) - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=600, help="runs offered a second")
    parser.add_argument("--seconds", type=float, default=10, help="how long")
    parser.add_argument("--rounds", type=int, default=3, help="alternating windows of each server")
    opts = parser.parse_args()
    rows: dict[str, list[tuple[int, int, float]]] = {"serve (early refusal)": [], "bare asyncio": []}
    for _ in range(opts.rounds):
        port = free_port()
        with _served(serve_command(port, 1, ["--max-runs", "1"]), port, {"BENCH_ADMISSION": "on"}) as server:
            with contextlib.closing(_hold(port, "/ours/chat")):
                rows["serve (early refusal)"].append(_window(port, "/ours/chat", server.pid, opts.rate, opts.seconds))
        port = free_port()
        with _served([sys.executable, "-c", BARE, str(port)], port, {}) as server:
            rows["bare asyncio"].append(_window(port, "/ours/chat", server.pid, opts.rate, opts.seconds))
    print(f"Refusals: {opts.rate:g} runs/s offered for {opts.seconds:g} s, one at a time (open loop); the server's "
          f"CPU per refusal, {opts.rounds} alternating windows each")
    print("| server | refused | served | CPU per refusal |")
    print("|---|---|---|---|")
    for name, windows in rows.items():
        per = sorted(cpu / refused * 1e6 for refused, _served_runs, cpu in windows if refused)
        refused = sum(w[0] for w in windows)
        served = sum(w[1] for w in windows)
        print(f"| {name} | {refused:,} | {served} | {per[0]:.0f}-{per[-1]:.0f} µs |")
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.1f} at the end")


if __name__ == "__main__":
    main()
