"""What one run costs the stores beside the workers (``docs/capacity.md``): Redis commands and bytes, S3 requests and
bytes. Counted, not timed: the figures do not move with the machine's load.

* **Redis** (``--resumable --events redis://...`` with ``--threads`` in files): ``strands-agui serve --app
  bench.apps:served`` (one worker, the paced chat run of 40 text deltas) and a redis-server started here; ``--runs``
  runs, ``--concurrency`` at a time; Redis' own ``INFO commandstats`` and ``INFO stats`` before and after: commands a
  run (by command), bytes a run into and out of Redis, and the memory a finished run's log holds until its TTL.
* **S3** (``S3Sessions`` on moto's server, threads on): ``bench.threads``' run on a thread of ``--messages`` earlier
  messages (the client sends its new message and its ``holds`` marker), in process; each S3 request botocore sends
  is recorded (``tests/support/s3.py``): requests a run by method, and the bytes it stored.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import tempfile
from collections import Counter
from typing import Any

from bench.http import body, free_port, read_run, request, start_server
from bench.openloop import serve_command


def _calls(client: Any) -> Counter[str]:
    return Counter({name.removeprefix("cmdstat_"): stat["calls"]
                    for name, stat in client.info("commandstats").items()})


def _totals(client: Any) -> tuple[int, int, int]:
    stats = client.info("stats")
    return stats["total_net_input_bytes"], stats["total_net_output_bytes"], client.info("memory")["used_memory"]


async def _runs(port: int, runs: int, concurrency: int, first: int = 0) -> None:
    numbers = itertools.count(first)

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while (n := next(numbers)) < first + runs:
                await read_run(reader, writer, request("/ours/chat", body("chat", n)))
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


def redis_costs(runs: int, concurrency: int) -> dict[str, Any]:
    from tests.support.redis import redis_server  # redis-server, as the suite starts it

    with redis_server() as redis, tempfile.TemporaryDirectory() as sessions, contextlib.ExitStack() as stack:
        port = free_port()
        extra = ["--threads", "--sessions", sessions, "--resumable", "--events", redis.url]
        server = start_server(port, command=serve_command(port, 1, extra))
        stack.callback(server.wait, 15)
        stack.callback(server.terminate)
        asyncio.run(_runs(port, 5, 5))  # warm-up: the worker's first runs import and build what later ones reuse
        import redis as redis_py

        client = stack.enter_context(redis_py.Redis.from_url(redis.url))
        before, totals = _calls(client), _totals(client)
        asyncio.run(_runs(port, runs, concurrency, 1000))
        calls, after = _calls(client) - before, _totals(client)
    calls.pop("info", None)
    return {"runs": runs, "commands": sum(calls.values()) / runs,
            "by_command": {name: count / runs for name, count in calls.most_common()},
            "bytes_in": (after[0] - totals[0]) / runs, "bytes_out": (after[1] - totals[1]) / runs,
            "memory_held": (after[2] - totals[2]) / runs}


def s3_costs(runs: int, messages: int) -> dict[str, Any]:
    from bench.threads import s3_store, threaded
    from tests.support.s3 import recorded_s3_requests

    with s3_store() as store:
        once = threaded(store, messages)
        once()  # warm-up: the thread's first run in this process reads what later ones remember
        stored = 0
        with recorded_s3_requests() as record:
            for _ in range(runs):
                stored += once()[1]
    methods = Counter(method for method, _key in record.seen)
    return {"runs": runs, "messages": messages, "requests": len(record.seen) / runs,
            "by_method": {method: count / runs for method, count in methods.most_common()}, "bytes": stored / runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100, help="runs measured in each part")
    parser.add_argument("--concurrency", type=int, default=10, help="Redis part: runs at a time")
    parser.add_argument("--messages", type=int, default=10, help="S3 part: earlier messages on the thread")
    opts = parser.parse_args()
    redis = redis_costs(opts.runs, opts.concurrency)
    s3 = s3_costs(opts.runs, opts.messages)
    print("| store | per run | by kind | bytes per run |\n|---|---:|---|---|")
    print(f"| Redis (resumable, paced 40-delta chat, threads in files) | {redis['commands']:.1f} commands | "
          + ", ".join(f"{name} {count:.1f}" for name, count in redis["by_command"].items())
          + f" | {redis['bytes_in']:,.0f} in, {redis['bytes_out']:,.0f} out; {redis['memory_held']:,.0f} held "
            "until the log's TTL |")
    print(f"| S3 (threads on, a thread of {s3['messages']} messages) | {s3['requests']:.1f} requests | "
          + ", ".join(f"{method} {count:.1f}" for method, count in s3["by_method"].items())
          + f" | {s3['bytes']:,.0f} stored |")
    print(f"({opts.runs} runs each; machine load {os.getloadavg()[0]:.1f}: counts, not times)")


if __name__ == "__main__":
    main()
