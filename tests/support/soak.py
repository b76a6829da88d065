"""``make soak``: the server's RSS over many runs, each on a new thread (default 10,000 runs).

The server (uvicorn on loopback, in this process) serves a scripted echo agent; 8 client threads post
the runs. RSS (``/proc/self/statm``) is sampled after ``--warmup`` runs (imports, caches, pools filled)
and after every 10% of the rest. Prints the samples and the growth after warm-up.
"""

from __future__ import annotations

import argparse
import gc
import os
from concurrent.futures import ThreadPoolExecutor

import httpx
from strands import Agent

from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.support.live import LiveServer

CLIENTS = 8
HEADERS = {"Accept": "text/event-stream", "Content-Type": "application/json"}


def rss() -> int:
    """Resident set size of this process, in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _body(n: int) -> dict[str, object]:
    return {"threadId": f"soak-thread-{n}", "runId": f"soak-run-{n}", "state": {"n": n}, "tools": [],
            "context": [], "forwardedProps": {}, "messages": [{"id": f"m-{n}", "role": "user", "content": f"hi {n}"}]}


def rss_growth(runs: int, warmup: int, samples: list[tuple[int, int]] | None = None) -> tuple[int, int]:
    """Serve ``runs`` runs on new threads; (RSS growth after ``warmup`` runs in bytes, runs that finished)."""
    model = ScriptedModel(lambda _messages: [Text("a short answer of a few words")])
    app = create_strands_app(StrandsAgent(Agent(model=model, callback_handler=None)))
    done = 0
    with LiveServer(app) as server, httpx.Client(timeout=30) as client, ThreadPoolExecutor(CLIENTS) as pool:

        def post(n: int) -> bool:
            response = client.post(server.url + "/", json=_body(n), headers=HEADERS)
            return response.status_code == 200 and b'"type":"RUN_FINISHED"' in response.content

        def batch(start: int, stop: int) -> int:
            return sum(pool.map(post, range(start, stop)))

        done += batch(0, warmup)
        gc.collect()
        base = rss()
        step = max(1, (runs - warmup) // 10)
        for start in range(warmup, runs, step):
            done += batch(start, min(runs, start + step))
            if samples is not None:
                gc.collect()
                samples.append((start + step, rss()))
        gc.collect()
        return rss() - base, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=500)
    opts = parser.parse_args()
    samples: list[tuple[int, int]] = []
    growth, done = rss_growth(opts.runs, opts.warmup, samples)
    for runs, size in samples:
        print(f"after {runs:6d} runs: RSS {size / 2**20:7.1f} MB")
    print(f"{done}/{opts.runs} runs finished; RSS growth after {opts.warmup} warm-up runs: {growth / 2**20:+.1f} MB")


if __name__ == "__main__":
    main()
