"""Resumable runs across processes, with the parts a deployment runs, started here on loopback: Debian's
redis-server as the event store, ``strands-agui serve --resumable --events redis://...`` processes (two
uvicorn workers, or two servers to choose which one answers), nginx cutting streams (``proxy_read_timeout``).

A multi-agent run (the multi_agent example: a Swarm, subagents, a streaming tool) is cut mid-stream and
stitched back on the other server, or through nginx, and the stitched stream equals the stored one and passes
both oracles; a run is cancelled from the other server; a SIGKILLed worker's run ends RUN_ERROR ``RUN_LOST``
for a reconnecting client; with Redis down, resumable routes answer 503 at once (no hang, no 500), but a cancel
on the worker running the run, which is taken there. Faults and attacks on the stores: test_adversarial_stores.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.oracles import assert_valid_sse
from tests.support.paths import REPO
from tests.support.processes import running
from tests.support.redis import redis_server, wait_for
from tests.support.resumable import SSE, cut, frames, reconnect, run_body
from tests.support.workers import free_port

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not shutil.which("redis-server"),
                                                     reason="redis-server: make tools installs it")]
ROOT = REPO
MULTI = "/multi_agent"


@contextmanager
def serve(events: str, workers: int = 1, delay: str = "0.02", *extra: str) -> Iterator[tuple[str, int]]:
    """``strands-agui serve --resumable --events`` (the examples) in its own process group; yields its URL
    and process group id once ``/ping`` answers."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "STRANDS_AGUI_SCRIPTED_DELAY": delay}
    url = f"http://127.0.0.1:{port}"
    with running([sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--port", str(port), "--workers",
                  str(workers), "--log-level", "warning", "--resumable", "--events", events, *extra],
                 env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        wait_for(lambda: proc.poll() is None and httpx.get(f"{url}/ping", timeout=1).status_code == 200, "serve")
        yield url, proc.pid


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as redis:
        yield redis.url


@pytest.fixture(scope="module")
def two_servers(redis_url: str) -> Iterator[tuple[str, str]]:
    with serve(redis_url) as (a, _), serve(redis_url) as (b, _):
        yield a + MULTI, b + MULTI


@pytest.fixture(scope="module")
def slow_servers(redis_url: str) -> Iterator[tuple[str, str]]:
    """Two servers whose model speaks 0.1 s a word: a run is still going when the other server acts on it."""
    with serve(redis_url, 1, "0.1") as (a, _), serve(redis_url, 1, "0.1") as (b, _):
        yield a, b


def assert_stitched(held: bytes, rest: httpx.Response, whole: httpx.Response, run_id: str) -> list[dict[str, Any]]:
    assert rest.status_code == 200, rest.text
    joined = frames(held + rest.content)
    assert [i for i, _ in joined] == [f"{run_id}:{n}" for n in range(1, len(joined) + 1)]  # each event once
    assert joined == frames(whole.content)
    assert joined[-1][1]["type"] == "RUN_FINISHED" and any(e["type"] == "SUBAGENT_STARTED" for _, e in joined)
    assert_valid_sse(held + rest.content, fail_on_run_error=True)
    return [e for _, e in joined]


def test_a_run_cut_on_one_server_is_stitched_back_on_the_other(two_servers: tuple[str, str]) -> None:
    a, b = two_servers
    held, last = cut(a, run_body("x-1"), after=10)
    rest = reconnect(b, "x-1", last)  # follows the live run on the other server, to its end
    whole = reconnect(a, "x-1", None)
    events = assert_stitched(held, rest, whole, "x-1")
    assert "three notes mention it" in "".join(e.get("delta", "") for e in events)


def test_a_reconnect_after_the_run_ended_replays_it_from_either_server(two_servers: tuple[str, str]) -> None:
    a, b = two_servers
    live = httpx.post(a, json=run_body("x-2"), headers=SSE, timeout=60)
    assert frames(reconnect(b, "x-2", None).content) == frames(live.content)
    assert frames(reconnect(b, "x-2", "x-2:20").content) == frames(live.content)[20:]


def test_two_workers_on_one_port_stitch_every_cut(redis_url: str) -> None:
    with serve(redis_url, 2) as (url, _):
        for n, after in enumerate((3, 25, 60)):  # the kernel spreads the connections over both workers
            run_id = f"w-{n}"
            held, last = cut(url + MULTI, run_body(run_id), after=after)
            assert_stitched(held, reconnect(url + MULTI, run_id, last), reconnect(url + MULTI, run_id, None), run_id)


def test_cancel_on_the_other_server_finishes_the_run_cancelled(slow_servers: tuple[str, str]) -> None:
    a, b = slow_servers
    result: dict[str, httpx.Response] = {}
    posting = threading.Thread(target=lambda: result.setdefault(
        "run", httpx.post(a + MULTI, json=run_body("x-3"), headers=SSE, timeout=60)))
    posting.start()
    answers: list[httpx.Response] = []
    wait_for(lambda: answers.append(httpx.post(f"{b}{MULTI}/runs/x-3/cancel")) or answers[-1].status_code != 404,
             "the run", limit=30)  # 404 until server a has opened the run's log
    posting.join(60)
    assert answers[-1].status_code == 202, answers[-1].text
    events = [e for _, e in frames(result["run"].content)]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
    assert not any(e["type"] == "SUBAGENT_STARTED" and e.get("name") == "writer" for e in events)  # stopped early
    assert_valid_sse(result["run"].content, fail_on_run_error=True)


def test_a_sigkilled_workers_run_ends_run_lost_for_a_reconnecting_client(redis_url: str,
                                                                         slow_servers: tuple[str, str]) -> None:
    _, b = slow_servers  # the server the client reconnects to; the one killed is this test's own
    with serve(redis_url, 1, "0.1") as (a, group):
        held, last = cut(a + MULTI, run_body("x-4"), after=8)
        os.killpg(group, signal.SIGKILL)
    started = time.monotonic()
    rest = reconnect(b + MULTI, "x-4", last, timeout=60)
    assert time.monotonic() - started < 30
    tail = [e for _, e in frames(rest.content)]
    assert tail[-1]["type"] == "RUN_ERROR" and tail[-1]["code"] == "RUN_LOST"
    assert_valid_sse(held + rest.content)


def test_with_redis_down_resumable_routes_answer_503_at_once() -> None:
    with redis_server() as redis, serve(redis.url) as (server, _):
        held, last = cut(server + MULTI, run_body("x-5"), after=3)
        redis.stop()
        started = time.monotonic()
        # first, while x-5 surely still runs (it ends once a write to the stopped Redis fails): this worker runs
        # it, so it is cancelled here, Redis or not
        own = httpx.post(f"{server}{MULTI}/runs/x-5/cancel", timeout=30)
        run = httpx.post(server + MULTI, json=run_body("x-6"), headers=SSE, timeout=30)
        again = reconnect(server + MULTI, "x-5", last)
        cancel = httpx.post(f"{server}{MULTI}/runs/x-9/cancel", timeout=30)
        elapsed = time.monotonic() - started
    assert (run.status_code, again.status_code, cancel.status_code, own.status_code) == (503, 503, 503, 202)
    assert "unavailable" in run.json()["detail"] and run.headers["retry-after"]
    assert elapsed < 20  # the store's socket timeout (2 s) bounds each request


NGINX_CONF = """
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
{user}
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass {upstream};
            proxy_http_version 1.1;
            proxy_read_timeout {cut}s;
        }}
    }}
}}
"""


@contextmanager
def nginx(upstream: str, cut_after: float, tmp: Path) -> Iterator[str]:
    """Debian's nginx on a free loopback port in front of ``upstream``, cutting a response that is silent
    for ``cut_after`` seconds (``proxy_read_timeout``)."""
    port = free_port()
    user = "user root;" if os.geteuid() == 0 else ""
    conf = tmp / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=tmp, port=port, upstream=upstream, cut=cut_after, user=user))
    url = f"http://127.0.0.1:{port}"
    with running([shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(conf), "-p", str(tmp),
                  "-e", str(tmp / "error.log")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        wait_for(lambda: proc.poll() is None and httpx.get(f"{url}/ping", timeout=1).status_code == 200, "nginx")
        yield url


def until_cut(method: str, url: str, last_event_id: str | None = None, **kwargs: Any) -> bytes:
    """The body read until the response ends or the proxy cuts it (then: its complete frames)."""
    headers = {**SSE, **({"Last-Event-ID": last_event_id} if last_event_id else {})}
    raw = b""
    try:
        with httpx.stream(method, url, headers=headers, timeout=60, **kwargs) as response:
            assert response.status_code == 200, response.read()
            for chunk in response.iter_raw():
                raw += chunk
    except httpx.RemoteProtocolError:  # nginx closed the connection mid-body
        pass
    return raw[: raw.rfind(b"\n\n") + 2]


@pytest.mark.skipif(not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()), reason="nginx: make tools")
def test_a_client_reconnecting_through_nginx_that_cuts_silent_streams_gets_the_whole_run(
        redis_url: str, tmp_path: Path) -> None:
    # the researcher's tool is silent for 1.5 s between reports; nginx cuts a stream silent for 1 s
    with serve(redis_url, 1, "0.15") as (server, _), nginx(server, 1, tmp_path) as proxy:
        held, cuts = until_cut("POST", proxy + MULTI, json=run_body("x-7")), 0
        while frames(held)[-1][1]["type"] not in ("RUN_FINISHED", "RUN_ERROR"):
            cuts += 1
            assert cuts < 20, "no end after 20 reconnects"
            held += until_cut("GET", f"{proxy}{MULTI}/runs/x-7/events", last_event_id=frames(held)[-1][0],
                              params={"protocolVersion": "1.0"})
        whole = reconnect(server + MULTI, "x-7", None)
    assert cuts >= 1, "nginx never cut the stream: the test proves nothing"
    assert frames(held) == frames(whole.content)
    assert_valid_sse(held, fail_on_run_error=True)
