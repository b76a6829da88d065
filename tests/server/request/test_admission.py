"""Admission control (``server/request/admission.py``) over real HTTP (uvicorn on loopback): a worker with a small
explicit limit, offered more runs than it takes, answers the rest 503 ``OVERLOADED`` with ``Retry-After`` at once
(while the admitted runs are still held in a tool: no refusal waited for room), serves every admitted run whole,
never refuses a reconnect, a cancel, a ping or the capabilities for load, and admits again once the load stops.
With Redis and a pool of one connection, a resumable run is refused while the pool is taken, and no accepted run
loses a stored event. Saturation is a small ``max_runs`` and runs held at a gate, never real overload: nothing here
depends on the machine's speed. The learned limit's rule is driven with given lags (``LoopLimit._adjust``)."""

from __future__ import annotations

import asyncio
import gc
import shutil
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from strands_agui.server.app import add_ping
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.request.admission import (
    DEFAULT_TARGET_LAG,
    MAXIMUM_LIMIT,
    MINIMUM_LIMIT,
    SUSTAINED,
    AdmissionPolicy,
    LoopLimit,
    loop_limit,
)
from strands_agui.server.request.early_refusal import PROTOCOL
from strands_agui.server.resumable.redis_store import RedisEvents
from strands_agui.server.resumable.run_routes import Resumable
from strands_agui.server.settings import EndpointSettings
from strands_agui.server.transport.inflight import IN_FLIGHT, Held
from strands_agui.server.transport.pacing import BUSY
from tests.oracles import assert_valid_sse
from tests.support.live import LiveServer
from tests.support.redis import redis_server
from tests.support.resumable import SSE, Gate, frames, gated_agent, reconnect, run_body
from tests.support.servers import wait_until

SMALL = AdmissionPolicy(max_runs=2, adaptive=False)
TARGET = DEFAULT_TARGET_LAG


@pytest.fixture(autouse=False)
def idle() -> Iterator[None]:
    """No run of an earlier test is still counted in flight (a limit of 2 counts every run of the process)."""
    wait_until(lambda: IN_FLIGHT.runs == 0, 120)  # a detached resumable run of another file ends within 60 s
    yield


pytestmark = pytest.mark.usefixtures("idle")


def served(gate: Gate, policy: AdmissionPolicy | None = SMALL, http: str = "h11", **settings: Any) -> LiveServer:
    app = FastAPI()
    add_ping(app)
    add_strands_fastapi_endpoint(app, gated_agent(gate), "/", admission=policy, **settings)
    return LiveServer(app, http=http)


PROTOCOLS = pytest.mark.parametrize("http", ["h11", PROTOCOL], ids=["route", "early"])  # refused by the route, or
# by ``serve``'s protocol before the app (``early_refusal.py``): the same answers either way


class Streams:
    """Runs posted from threads, each read whole: its status, its body (a 503's too)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.answers: dict[str, tuple[int, httpx.Headers, bytes]] = {}
        self.threads: list[threading.Thread] = []

    def post(self, run_id: str, text: str = "wait") -> None:
        def run() -> None:
            with httpx.stream("POST", self.url, json=run_body(run_id, text), headers=SSE, timeout=30) as response:
                self.answers[run_id] = (response.status_code, response.headers, response.read())

        self.threads.append(threading.Thread(target=run))
        self.threads[-1].start()

    def join(self) -> None:
        for thread in self.threads:
            thread.join(30)
            assert not thread.is_alive()


def refused(response: httpx.Response | tuple[int, httpx.Headers, bytes], cause: str = "runs_in_flight") -> None:
    status, headers, content = (response.status_code, response.headers, response.content) \
        if isinstance(response, httpx.Response) else response
    assert status == 503, content
    assert headers["retry-after"] == "1"
    assert headers.get("connection") != "close"  # a refusal is cheap: the connection serves the client's retry
    detail = httpx.Response(503, content=content).json()["detail"]
    assert detail["code"] == "OVERLOADED" and detail["cause"] == cause, detail
    assert "nothing was started" in detail["message"]


def finished(content: bytes) -> list[dict[str, Any]]:
    events = [event for _, event in frames(content)]
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    assert_valid_sse(content, fail_on_run_error=True)
    return events


def refused_count(url: str, cause: str) -> float:
    line = f'strands_agui_refused_runs_total{{agent="gated",cause="{cause}"}} '
    for text in httpx.get(f"{url}/metrics").text.splitlines():
        if text.startswith(line):
            return float(text.removeprefix(line))
    return 0.0


@PROTOCOLS
def test_past_its_limit_a_worker_refuses_at_once_serves_the_admitted_runs_whole_and_recovers(http: str) -> None:
    gate = Gate()
    with served(gate, metrics=True, http=http) as server:
        before = refused_count(server.url, "runs_in_flight")
        held = Streams(server.url + "/")
        held.post("held-1")
        held.post("held-2")
        gate.wait_for_entries(2)
        for n in range(5):  # answered while both admitted runs wait at the gate: no refusal waited for room
            refused(httpx.post(server.url + "/", json=run_body(f"extra-{n}"), headers=SSE, timeout=10))
        assert gate.entries == 2 and not gate.opened.is_set()  # nothing of a refused run started
        busy = httpx.get(f"{server.url}/ready", timeout=10)  # a balancer's readiness check: this worker is full
        assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
        assert busy.json() == {"status": "saturated", "inFlight": 2, "limit": 2}
        assert refused_count(server.url, "runs_in_flight") == before + 5
        gate.opened.set()
        held.join()
        for run_id in ("held-1", "held-2"):
            status, _, content = held.answers[run_id]
            assert status == 200
            assert "Through the gate." in "".join(e.get("delta", "") for e in finished(content))
        wait_until(lambda: IN_FLIGHT.runs == 0, 10)
        assert httpx.get(f"{server.url}/ready", timeout=10).json() == {"status": "ready", "inFlight": 0, "limit": 2}
        again = Streams(server.url + "/")  # the load stopped: the worker admits runs again, up to its limit
        again.post("after-1")
        again.post("after-2")
        again.join()
        assert all(again.answers[r][0] == 200 and finished(again.answers[r][2]) for r in ("after-1", "after-2"))


@PROTOCOLS
def test_reconnects_cancels_pings_and_capabilities_are_never_refused_for_load(http: str) -> None:
    gate = Gate()
    with served(gate, AdmissionPolicy(max_runs=1, adaptive=False), http=http, resumable=True) as server:
        url = server.url + "/"
        held = Streams(url)
        held.post("busy-1")
        gate.wait_for_entries(1)
        refused(httpx.post(url, json=run_body("busy-2"), headers=SSE, timeout=10))
        with httpx.stream("GET", f"{server.url}/runs/busy-1/events", headers={**SSE, "Last-Event-ID": "busy-1:1"},
                          timeout=10) as follow:
            assert follow.status_code == 200  # a reconnect to the run in flight: streams, not 503
            assert b"busy-1:2" in next(follow.iter_bytes())
        assert httpx.get(f"{server.url}/capabilities", timeout=10).status_code == 200
        assert httpx.get(f"{server.url}/ping", timeout=10).status_code == 200
        assert httpx.post(f"{server.url}/runs/busy-1/cancel", timeout=10).status_code == 202
        gate.opened.set()  # a tool that ignores Strands' cancel signal returns; Strands then stops
        held.join()
        assert finished(held.answers["busy-1"][2])[-1]["outcome"] == {"type": "cancelled"}
        wait_until(lambda: IN_FLIGHT.runs == 0, 10)
        again = httpx.post(url, json=run_body("busy-3", "quick"), headers=SSE, timeout=30)
        assert again.status_code == 200 and finished(again.content)


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("redis-server"), reason="redis-server: make tools installs it")
def test_with_a_pool_of_one_redis_connection_no_accepted_run_loses_a_stored_event(
        caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    with redis_server() as redis:
        store = RedisEvents(redis.url, max_connections=1)
        policy = AdmissionPolicy(max_runs=3, adaptive=False)
        with served(gate, policy, resumable=Resumable(store)) as server:
            url = server.url + "/"
            taken = asyncio.run_coroutine_threadsafe(  # the pool's one connection, held for 1 s on the worker's loop
                store.call(lambda r: r.blpop(["admission-test-nothing"], timeout=1)), server.loop)
            wait_until(lambda: asyncio.run_coroutine_threadsafe(_busy(store), server.loop).result() is not None, 5)
            refused(httpx.post(url, json=run_body("pool-0", "quick"), headers=SSE, timeout=10), "event_store")
            taken.result(10)
            burst = Streams(url)
            for n in range(8):
                burst.post(f"pool-{n + 1}")
            wait_until(lambda: len(burst.answers) + gate.entries >= 8, 20)  # every run answered or at the gate
            gate.opened.set()
            burst.join()
            admitted = [run_id for run_id, (status, _, _) in burst.answers.items() if status == 200]
            assert 1 <= len(admitted) <= 3, {r: a[0] for r, a in burst.answers.items()}
            for run_id, answer in burst.answers.items():
                if run_id not in admitted:
                    refused(answer, "runs_in_flight" if b"runs_in_flight" in answer[2] else "event_store")
            for run_id in admitted:  # the stored log is the stream, event for event, id for id
                streamed = burst.answers[run_id][2]
                finished(streamed)
                assert frames(reconnect(url.rstrip("/"), run_id, None).content) == frames(streamed)
    assert "events no longer stored" not in caplog.text


async def _busy(store: RedisEvents) -> str | None:
    return store.busy()


# ----------------------------------------------------------------------------- the learned limit's rule


def _window(limit: LoopLimit, lag: float, *, peak: int = 0, refused: int = 0, spike: bool = False) -> float:
    """One window of mean lag ``lag``, the windows before it as slow (``spike``: only this one)."""
    if not spike:
        limit.history.extend([lag] * (SUSTAINED - 1))
    limit._lags, limit._samples, limit.peak, limit.refused = lag * 5, 5, peak, refused
    limit._adjust()
    return limit.limit


def test_the_limit_falls_with_the_loops_lag_waits_for_its_runs_then_grows_only_when_reached() -> None:
    loop = asyncio.new_event_loop()
    held = [Held() for _ in range(100)]
    try:
        limit = LoopLimit(AdmissionPolicy(), loop)
        limit.history.extend([0.001] * 50)  # a quiet machine: the threshold is target_lag (5 ms)
        assert limit.threshold() == AdmissionPolicy().target_lag == TARGET
        assert _window(limit, 0.200, spike=True) == MAXIMUM_LIMIT  # one slow window: another process, not load
        assert _window(limit, 4 * TARGET) == 50  # 100 runs at 4x the target lag: cut to half (the most one window cuts)
        assert _window(limit, 4 * TARGET) == 50  # still 100 in flight, admitted before the cut: not cut again
        assert _window(limit, 4 * TARGET, refused=5) == 50  # and not grown for its refusals while the lag is high
        for entry in held[40:]:
            entry.leave()
        assert _window(limit, 4 * TARGET) == 50  # the window in which they came within it: its lag is theirs
        assert _window(limit, 1.05 * TARGET) == pytest.approx(40 * 0.9)  # the limit's own lag: cut, 10% at least
        assert _window(limit, 0.001) == pytest.approx(36)  # fast, and the limit was not reached: it stays
        assert BUSY[loop].shedding is False  # nothing refused in the window: its runs pace as on any loop
        assert _window(limit, 0.001, refused=1) == pytest.approx(42)  # reached: it grows by its square root
        assert BUSY[loop].shedding is True  # a run refused: its runs give the loop a turn per slice (pacing.py)
        assert _window(limit, 10 * TARGET) == 20  # 40 in flight: cut to half of them
        assert _window(limit, 0.5) == 20  # 40 in flight still: they wait below it
        for entry in held[10:40]:
            entry.leave()
        assert _window(limit, 0.5) == 20
        assert _window(limit, 0.5) == MINIMUM_LIMIT  # 10 in flight, however slow: never below the minimum
        capped = LoopLimit(AdmissionPolicy(max_runs=30), loop)
        assert _window(capped, 0.001, refused=1) == 30  # never above max_runs
    finally:
        for entry in held:
            entry.leave()
        loop.close()


def test_on_a_machine_that_lags_unloaded_the_threshold_is_twice_its_baseline_up_to_max_lag() -> None:
    loop = asyncio.new_event_loop()
    held = [Held() for _ in range(100)]
    try:
        limit = LoopLimit(AdmissionPolicy(), loop)
        limit.history.extend([0.015] * 50)  # a machine shared with other work: 15 ms of lag with few runs
        assert limit.threshold() == pytest.approx(0.030)
        assert _window(limit, 0.025) == MAXIMUM_LIMIT  # within twice the baseline: not the worker's own load
        assert _window(limit, 0.060) == 50  # past it: cut
        spike = LoopLimit(AdmissionPolicy(), loop)
        spike.history.extend([0.2] * 50)  # started into a spike: every window it has seen lagged
        assert spike.threshold() == AdmissionPolicy().max_lag
        assert _window(spike, 0.2) == 50  # still sheds: the threshold is at most max_lag
    finally:
        for entry in held:
            entry.leave()
        loop.close()


def test_a_loop_held_by_its_callbacks_shows_its_lag_and_lowers_the_limit() -> None:
    held = [Held() for _ in range(40)]

    async def busy() -> LoopLimit:
        limit = LoopLimit(AdmissionPolicy(), asyncio.get_running_loop())
        limit.history.extend([0.001] * 50)  # it was quiet
        limit.admits()  # starts the probe
        deadline = time.monotonic() + 60  # windows end as the loop gets to them: on a loaded machine, later
        while limit.limit == MAXIMUM_LIMIT and time.monotonic() < deadline:
            spun = time.thread_time() + 0.05
            while time.thread_time() < spun:  # a callback holding the loop on the CPU: every probe due waits
                pass
            await asyncio.sleep(0)
        return limit

    try:
        limit = asyncio.run(busy())
    finally:
        for entry in held:
            entry.leave()
    assert limit.lag > AdmissionPolicy().target_lag
    assert limit.limit <= 41 * 0.9


def test_admission_off_admits_whatever_is_in_flight_and_bad_policies_are_refused() -> None:
    gate = Gate()
    crowd = [Held() for _ in range(200_001)]  # past any learned limit
    try:
        with served(gate, None) as server:
            response = httpx.post(server.url + "/", json=run_body("open-1", "quick"), headers=SSE, timeout=30)
            assert response.status_code == 200 and finished(response.content)
    finally:
        for entry in crowd:
            entry.leave()
    for bad in ({"target_lag": 0}, {"max_lag": 0.001}, {"max_runs": 0}, {"adaptive": False}, {"retry_after": -1}):
        with pytest.raises(ValueError):
            AdmissionPolicy(**bad)
    with pytest.raises(TypeError, match="AdmissionPolicy"):
        EndpointSettings(admission=3)  # type: ignore[arg-type]


def test_a_run_counted_at_admission_is_counted_once_and_given_back_once() -> None:
    before = IN_FLIGHT.runs
    held = Held()
    assert IN_FLIGHT.runs == before + 1
    held.leave()
    held.leave()  # the driver and the route may both give it back: once counts
    assert IN_FLIGHT.runs == before
    Held()  # dropped without being given back (a response never sent): given back when collected
    gc.collect()
    assert IN_FLIGHT.runs == before


async def test_a_loop_sheds_while_any_of_its_endpoints_policies_refused_in_its_last_window() -> None:
    """Its runs pace per slice then (``transport/pacing``): one endpoint refusing is the worker past saturation,
    whatever another endpoint's limit (a policy of its own) saw in its window."""
    loop = asyncio.get_running_loop()
    shedding, quiet = loop_limit(AdmissionPolicy(max_runs=10)), loop_limit(AdmissionPolicy(max_runs=20))
    shedding._samples = quiet._samples = 1
    shedding.refused = 3
    shedding._adjust()
    assert BUSY[loop].shedding is True
    quiet._adjust()  # nothing refused in its window: the loop sheds still
    assert BUSY[loop].shedding is True
    shedding.refused = 0  # (the probe starts each window's count at 0)
    shedding._adjust()  # a window without a refusal on either
    assert BUSY[loop].shedding is False
