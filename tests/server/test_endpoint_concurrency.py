"""Concurrent runs over real HTTP: 100 runs on distinct threads without cross-talk, two runs on the same thread.

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); helpers in ``tests/support/``.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from strands import Agent
from strands.hooks import AfterInvocationEvent, BeforeInvocationEvent

from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.server.app import create_strands_app
from tests.oracles import assert_valid_streams
from tests.support.agents import echo_model
from tests.support.live import LiveServer
from tests.support.wire import SSE_HEADERS, parse_sse, run_input, text_of, types, without_trace

pytestmark = pytest.mark.usefixtures("no_server_errors")


class InFlight:
    """Counts Strands invocations running at once (hooks on the template, copied to every run)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = self.total = 0

    def before(self, event: BeforeInvocationEvent) -> None:
        with self.lock:
            self.now += 1
            self.total += 1
            self.peak = max(self.peak, self.now)

    def after(self, event: AfterInvocationEvent) -> None:
        with self.lock:
            self.now -= 1


def _echo_server_with_counter(delay: float, words: int) -> tuple[FastAPI, InFlight]:
    counter = InFlight()
    template = Agent(model=echo_model(delay=delay, words=words), callback_handler=None)
    template.hooks.add_callback(BeforeInvocationEvent, counter.before)
    template.hooks.add_callback(AfterInvocationEvent, counter.after)
    # 100 runs at once, their 100 client threads in this process: the server's loop lags behind them and admission
    # control would rightly shed some; here every run must be served (admission: tests/server/request/test_admission.py)
    return create_strands_app(StrandsAgent(template), admission=None), counter


def _run_all(url: str, bodies: list[dict[str, Any]]) -> list[bytes]:
    """POST every body at once, each from its own thread on its own connection; the raw SSE bodies."""
    limits = httpx.Limits(max_connections=len(bodies), max_keepalive_connections=0)
    with httpx.Client(timeout=30, limits=limits) as client, ThreadPoolExecutor(len(bodies)) as pool:
        responses = list(pool.map(lambda body: client.post(url, json=body, headers=SSE_HEADERS), bodies))
    assert [r.status_code for r in responses] == [200] * len(bodies)
    return [r.content for r in responses]


@pytest.mark.slow
def test_100_concurrent_runs_have_no_cross_talk() -> None:
    n, words = 100, 5
    app, counter = _echo_server_with_counter(delay=0.01, words=words)
    bodies = [run_input(f"message-{i}", thread_id=f"thread-{i}", run_id=f"run-{i}") for i in range(n)]
    with LiveServer(app) as server:
        raws = _run_all(server.url + "/", bodies)
    filler = "".join(f" w{j}" for j in range(words))
    streams = [parse_sse(raw)[0] for raw in raws]
    for i, events in enumerate(streams):
        assert without_trace(events[0]) == {"type": "RUN_STARTED", "threadId": f"thread-{i}", "runId": f"run-{i}"}
        assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "success"}
        assert (events[-1]["threadId"], events[-1]["runId"]) == (f"thread-{i}", f"run-{i}")
        assert text_of(events) == f"echo message-{i}{filler}"
        others = {e.get("threadId") for e in events} | {e.get("runId") for e in events}
        assert others <= {None, f"thread-{i}", f"run-{i}"}
    assert counter.total == n and counter.now == 0
    assert counter.peak >= n // 2, f"runs did not overlap (peak {counter.peak})"
    assert_valid_streams([streams[0], streams[-1]], fail_on_run_error=True)


@pytest.mark.slow
def test_two_concurrent_runs_on_the_same_thread() -> None:
    app, counter = _echo_server_with_counter(delay=0.02, words=10)
    bodies = [run_input(f"take-{k}", thread_id="shared", run_id=f"run-{k}") for k in (1, 2)]
    with LiveServer(app) as server:
        raws = _run_all(server.url + "/", bodies)
    streams = [parse_sse(raw)[0] for raw in raws]
    for k, events in zip((1, 2), streams, strict=True):
        assert events[0]["runId"] == events[-1]["runId"] == f"run-{k}"
        assert {e.get("threadId") for e in events} == {None, "shared"}
        assert types(events)[-1] == "RUN_FINISHED"
        assert text_of(events) == f"echo take-{k}" + "".join(f" w{j}" for j in range(10))
    assert counter.peak == 2
    assert_valid_streams(streams, fail_on_run_error=True)
