"""``make bench`` (resumable runs): what ``resumable=True`` costs per event, as a ratio to a run without it.

Workload: a real strands.Agent on a scripted model streaming ``--deltas`` text deltas, served by uvicorn on
loopback (in this process, one thread) and read whole by one client, run after run. Three endpoints of the
same agent: not resumable, resumable with the in-memory store, resumable with Redis Streams (a redis-server
started here on a free loopback port, when Debian's ``redis-server`` is installed). Best of ``--rounds``
rounds, interleaved; the figure is the served run's wall time per AG-UI event. Not a test: nothing is
asserted on time.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from strands import Agent

from strands_agui import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.server.resumable.redis_store import RedisEvents
from strands_agui.server.resumable.run_routes import Resumable
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.live import LiveServer


def agent(deltas: int) -> StrandsAgent:
    words = " ".join(f"w{i}" for i in range(deltas))
    model = ScriptedModel(lambda _messages: [Text(words)])
    return StrandsAgent(Agent(model=model, callback_handler=None), name="bench")


def body() -> dict[str, Any]:
    run = uuid.uuid4().hex
    return {"threadId": run, "runId": run, "state": {}, "messages": [{"id": "u", "role": "user", "content": "go"}],
            "tools": [], "context": [], "forwardedProps": {}}


def one_run(url: str) -> tuple[float, int]:
    started = time.perf_counter()
    response = httpx.post(url, json=body(), headers={"Accept": "text/event-stream"}, timeout=120)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200 and b"RUN_FINISHED" in response.content, response.text[-300:]
    return elapsed, response.content.count(b"\ndata: ") + 1


@contextmanager
def redis_url() -> Iterator[str | None]:
    if not shutil.which("redis-server"):
        yield None
        return
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--deltas", type=int, default=2000)
    args.add_argument("--rounds", type=int, default=7)
    opts = args.parse_args()
    with redis_url() as redis:
        stores: dict[str, Any] = {"off": False, "memory": Resumable()}
        if redis is not None:
            stores["redis"] = Resumable(RedisEvents(redis))
        servers = {name: LiveServer(create_strands_app(agent(opts.deltas), resumable=setting))
                   for name, setting in stores.items()}
        for server in servers.values():
            server.__enter__()
        try:
            best = {name: float("inf") for name in servers}
            events = 0
            for _ in range(opts.rounds):
                for name, server in servers.items():
                    seconds, events = one_run(server.url + "/")
                    best[name] = min(best[name], seconds)
        finally:
            for server in servers.values():
                server.__exit__(None, None, None)
    print(f"resumable runs: {opts.deltas} text deltas -> {events} AG-UI events, served on loopback, best of "
          f"{opts.rounds}")
    print("| events | per event | ratio to off |\n|---|---:|---:|")
    for name, seconds in best.items():
        print(f"| {name} | {seconds / events * 1e6:.2f} us | {seconds / best['off']:.2f}x |")
    if redis is None:
        print("(redis-server is not installed: no Redis figure; make tools installs it)")


if __name__ == "__main__":
    main()
