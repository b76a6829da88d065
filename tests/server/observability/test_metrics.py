"""Prometheus metrics over HTTP: real runs (a chat, a failing model, a disconnect, a cancel by id, a reconnect)
served by uvicorn on loopback, then ``GET /metrics`` parsed by prometheus-client's own text parser. Several
worker processes (``strands-agui serve --metrics --workers 2``) sum into one scrape."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import httpx
import pytest
from fastapi import FastAPI
from strands import Agent, tool

from strands_agui import StrandsAgent
from strands_agui.environment import METRICS_ENV
from strands_agui.server.app import create_strands_app
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.resumable.run_routes import Resumable
from strands_agui.tooling.scripted import Fail, ScriptedModel, Text, ToolUse
from tests.support.live import LiveServer
from tests.support.observability import sample, scrape
from tests.support.paths import REPO
from tests.support.processes import running
from tests.support.resumable import SSE, cut, frames, reconnect, run_body
from tests.support.workers import wait_until_serving

ROOT = REPO
RUNS = "strands_agui_runs_total"


def agent(name: str, script: list[list[object]] | None = None, delay: float = 0.0) -> StrandsAgent:
    model = ScriptedModel(script or [[Text("Hello there, how can I help?")]], delay=delay)  # type: ignore[arg-type]
    return StrandsAgent(Agent(model=model, callback_handler=None), name=name)


def _wait(predicate: object, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_runs_are_counted_by_outcome_and_code_and_timed() -> None:
    app = FastAPI()
    add_strands_fastapi_endpoint(app, agent("m_chat"), "/chat", metrics=True)
    add_strands_fastapi_endpoint(app, agent("m_fail", [[Text("Starting"), Fail(RuntimeError("down"))]]), "/fail",
                                 metrics=True)
    words = " ".join(f"word{i}" for i in range(300))
    add_strands_fastapi_endpoint(app, agent("m_left", [[Text(words)]], delay=0.02), "/left", metrics=True)
    with LiveServer(app) as server:
        for i in range(2):
            assert httpx.post(server.url + "/chat", json=run_body(f"m-chat-{i}"), headers=SSE).status_code == 200
        failed = frames(httpx.post(server.url + "/fail", json=run_body("m-fail"), headers=SSE).content)[-1][1]
        cut(server.url + "/left", run_body("m-left"), after=3)
        _wait(lambda: sample(scrape(server.url + "/metrics"), RUNS, agent="m_left", outcome="disconnected", code=""))
        samples = scrape(server.url + "/metrics")
    assert sample(samples, RUNS, agent="m_chat", outcome="success", code="") == 2
    assert sample(samples, RUNS, agent="m_fail", outcome="error", code=failed["code"]) == 1
    assert sample(samples, RUNS, agent="m_left", outcome="disconnected", code="") == 1
    duration = "strands_agui_run_duration_seconds"
    assert sample(samples, duration + "_count", agent="m_chat", outcome="success") == 2
    assert 0 < sample(samples, duration + "_sum", agent="m_chat", outcome="success") < 10
    assert sample(samples, duration + "_bucket", agent="m_chat", outcome="success", le="+Inf") == 2
    for name, first_output in (("m_chat", 2), ("m_fail", 1), ("m_left", 1)):  # every run had some output
        assert sample(samples, "strands_agui_time_to_first_event_seconds_count", agent=name) == first_output
        assert sample(samples, "strands_agui_time_to_first_output_seconds_count", agent=name) == first_output
        assert sample(samples, "strands_agui_active_runs", agent=name) == 0
    first, whole = (sample(samples, f"strands_agui_time_to_first_{k}_seconds_sum", agent="m_chat")
                    for k in ("event", "output"))
    assert 0 < first <= whole <= sample(samples, duration + "_sum", agent="m_chat", outcome="success")


def test_active_runs_cancels_and_reconnects_of_a_resumable_endpoint() -> None:
    gate = threading.Event()

    @tool
    async def wait_for_gate() -> str:
        """Waits until the test opens the gate."""
        while not gate.is_set():
            await asyncio.sleep(0.01)
        return "open"

    model = ScriptedModel([[ToolUse("wait_for_gate", {})], [Text("The gate is open.")]])
    held = StrandsAgent(Agent(model=model, tools=[wait_for_gate], callback_handler=None), name="m_res")
    app = create_strands_app(held, resumable=Resumable(detach_seconds=30), metrics=True)
    with LiveServer(app) as server:
        url, metrics = server.url + "/", server.url + "/metrics"
        _, last = cut(url, run_body("m-res-1"), after=3)  # the run goes on, detached, inside the tool
        _wait(lambda: sample(scrape(metrics), "strands_agui_active_runs", agent="m_res") == 1)
        gate.set()
        rest = reconnect(server.url, "m-res-1", last)
        assert frames(rest.content)[-1][1]["type"] == "RUN_FINISHED"
        assert reconnect(server.url, "no-such-run", None).status_code == 404
        assert reconnect(server.url, "m-res-1", frames(rest.content)[-1][0]).status_code == 204
        samples = scrape(metrics)
    assert sample(samples, RUNS, agent="m_res", outcome="success", code="") == 1  # finished while detached
    assert [sample(samples, "strands_agui_reconnects_total", agent="m_res", status=s) for s in ("200", "404", "204")] \
        == [1, 1, 1]
    assert sample(samples, "strands_agui_active_runs", agent="m_res") == 0


def test_a_cancelled_run_is_counted_cancelled() -> None:
    app = create_strands_app(agent("m_cancel", [[Text(" ".join(f"w{i}" for i in range(300)))]], delay=0.02),
                             resumable=True, metrics=True)
    with LiveServer(app) as server:
        with httpx.stream("POST", server.url + "/", json=run_body("m-cancel"), headers=SSE, timeout=30) as live:
            chunks = live.iter_raw()
            next(chunks)
            assert httpx.post(server.url + "/runs/m-cancel/cancel").status_code == 202
            b"".join(chunks)
        samples = scrape(server.url + "/metrics")
    assert sample(samples, RUNS, agent="m_cancel", outcome="cancelled", code="") == 1


def test_metrics_are_off_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    with LiveServer(create_strands_app(agent("m_off"))) as server:
        assert httpx.get(server.url + "/metrics").status_code == 404
    monkeypatch.setenv(METRICS_ENV, "1")  # what `strands-agui serve --metrics` sets for every worker
    with LiveServer(create_strands_app(agent("m_env"), metrics_path="/ops/metrics")) as server:
        assert httpx.post(server.url + "/", json=run_body("m-env"), headers=SSE).status_code == 200
        assert sample(scrape(server.url + "/ops/metrics"), RUNS, agent="m_env", outcome="success", code="") == 1
        assert "/ops/metrics" not in httpx.get(server.url + "/openapi.json").text


@contextmanager
def serve_workers(workers: int) -> Iterator[str]:
    """``strands-agui serve --metrics --workers N`` of the examples, in its own process group."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "STRANDS_AGUI_SCRIPTED_DELAY": "0"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    url = f"http://127.0.0.1:{port}"
    with running([sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--port", str(port), "--workers",
                  str(workers), "--metrics", "--log-level", "warning"],
                 env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        wait_until_serving(proc, url)
        yield url


@pytest.mark.slow
def test_two_workers_sum_into_every_scrape() -> None:
    """Runs land on both workers; each scrape (answered by either) counts all of them: multiprocess mode."""
    runs = 12
    with serve_workers(2) as url:
        with ThreadPoolExecutor(max_workers=6) as pool:
            bodies = [run_body(f"w-{i}", text="hi") for i in range(runs)]
            responses = list(pool.map(lambda b: httpx.post(url + "/agentic_chat", json=b, headers=SSE, timeout=60),
                                      bodies))
        assert all(frames(r.content)[-1][1]["type"] == "RUN_FINISHED" for r in responses)
        scrapes = [scrape(url + "/metrics") for _ in range(6)]
    for samples in scrapes:
        assert sample(samples, RUNS, agent="agentic_chat", outcome="success", code="") == runs
        assert sample(samples, "strands_agui_active_runs", agent="agentic_chat") == 0
