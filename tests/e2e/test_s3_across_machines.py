"""Several machines share pauses through S3: two ``strands-agui serve --sessions s3://BUCKET/PREFIX`` processes,
each in its own working directory, behind a round-robin nginx; the S3 store is a real S3-compatible server
(moto's ``ThreadedMotoServer``) on loopback.

A pause parked through one machine is resumed through the other; of two concurrent resumes one wins; a holder
killed with SIGKILL holds the thread only until its lease expires; an unreachable store is ``SESSION_ERROR`` at
once. Everything runs on loopback and is stopped by the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from moto.server import ThreadedMotoServer

from tests.support.processes import running
from tests.support.workers import PIDS, ROUTE, booked, free_port, held_messages, pause, serve

pytestmark = pytest.mark.slow

BUCKET = "agui-pauses"
LEASE_SECONDS = 4
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_CONF = """
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body; proxy_temp_path {dir}/proxy; fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi; scgi_temp_path {dir}/scgi;
    upstream machines {{ server {a}; server {b}; }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://machines;
            proxy_http_version 1.1;
            proxy_buffering off;
            proxy_next_upstream off;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""


@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, str]]:
    """moto's S3 server on loopback with the bucket; yields the AWS environment a machine is started with."""
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1",
           "STRANDS_AGUI_LEASE_SECONDS": str(LEASE_SECONDS)}
    s3_client(env).create_bucket(Bucket=BUCKET)
    try:
        yield env
    finally:
        server.stop()


def s3_client(env: dict[str, str]) -> Any:
    return boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], region_name=env["AWS_REGION"],
                        aws_access_key_id=env["AWS_ACCESS_KEY_ID"], aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"])


@contextmanager
def nginx(workdir: Path, *upstreams: str) -> Iterator[str]:
    """nginx round-robin over ``upstreams`` (host:port) on a free loopback port, its own config and files."""
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=workdir, a=upstreams[0], b=upstreams[1], port=port))
    url = f"http://127.0.0.1:{port}"
    with running([NGINX, "-p", str(workdir), "-c", str(conf), "-g", "daemon off;"], stderr=subprocess.PIPE) as proc:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()  # type: ignore[union-attr]
            try:
                httpx.get(url + "/ping", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.1)
        yield url


@pytest.fixture(scope="module")
def machines(s3: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """(the proxy, machine a, machine b): two serve processes in their own directories, one S3 prefix."""
    root = tmp_path_factory.mktemp("machines")
    sessions = f"s3://{BUCKET}/pauses"
    env = {**s3, "STRANDS_AGUI_THREADS": "1"}  # serve --threads
    with serve(sessions, cwd=_dir(root / "a"), env=env) as a, serve(sessions, cwd=_dir(root / "b"), env=env) as b, \
            nginx(root / "nginx", a.removeprefix("http://"), b.removeprefix("http://")) as proxy:
        yield proxy, a, b


def _dir(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


def post(url: str, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The machine that served the run (nginx's X-Upstream; the URL itself without a proxy) and its events."""
    response = httpx.post(url + ROUTE, json=body, headers={"Accept": "text/event-stream"}, timeout=60)
    assert response.status_code == 200, response.text
    events = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    return response.headers.get("x-upstream", url), events


def code(events: list[dict[str, Any]]) -> str | None:
    return events[-1].get("code") if events[-1]["type"] == "RUN_ERROR" else None


def test_a_pause_parked_through_one_machine_resumes_through_the_other(machines: tuple[str, str, str]) -> None:
    proxy, _, _ = machines
    for _ in range(2):
        ask = _ask()
        parked_on, events = post(proxy, ask)
        (interrupt,) = events[-1]["outcome"]["interrupts"]
        resume = {**ask, "runId": "r2", "messages": held_messages(ask, events),
                  "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]}
        resumed_on, events = post(proxy, resume)
        assert parked_on != resumed_on, "round robin: the next request goes to the other machine"
        assert booked(events, "Oslo"), events[-1]


def _ask() -> dict[str, Any]:
    return {"threadId": f"ask-{uuid.uuid4().hex}", "runId": "r1",
            "messages": [{"id": "u1", "role": "user", "content": "fly me to Oslo"}]}


def test_a_thread_kept_through_one_machine_is_listed_restored_and_deleted_through_the_other(
        machines: tuple[str, str, str]) -> None:
    _, a, b = machines
    ask = _ask()
    post(a, ask)
    page = httpx.get(f"{b}{ROUTE}/threads", params={"limit": 100}).json()
    assert ask["threadId"] in [t["threadId"] for t in page["threads"]]
    kept = httpx.get(f"{b}{ROUTE}/threads/{ask['threadId']}").json()
    assert kept["messages"][0]["content"] == "fly me to Oslo" and len(kept["pendingInterrupts"]) == 1
    assert httpx.delete(f"{b}{ROUTE}/threads/{ask['threadId']}").status_code == 204
    assert httpx.get(f"{a}{ROUTE}/threads/{ask['threadId']}").status_code == 404


def test_of_two_concurrent_resumes_on_two_machines_one_wins(machines: tuple[str, str, str]) -> None:
    _, a, b = machines
    for _ in range(3):
        resume = pause(a, f"race-{uuid.uuid4().hex}")
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = [pool.submit(post, url, resume) for url in (a, b)]
            outcomes = [run.result()[1] for run in runs]
        assert sum(booked(events) for events in outcomes) == 1, [o[-1] for o in outcomes]
        assert sorted(str(code(o)) for o in outcomes if not booked(o))[0] in ("THREAD_BUSY", "INTERRUPT_NOT_FOUND")


def test_a_holder_killed_with_sigkill_holds_the_thread_only_until_its_lease_expires(
        machines: tuple[str, str, str], s3: dict[str, str], tmp_path: Path) -> None:
    _, a, b = machines
    resume = pause(a, f"kill-{uuid.uuid4().hex}")
    slow = {**s3, "STRANDS_AGUI_SCRIPTED_DELAY": "5"}  # the resumed model's words come slowly: the run holds
    with serve(f"s3://{BUCKET}/pauses", cwd=_dir(tmp_path / "c"), env=slow) as holder:
        with httpx.stream("POST", holder + ROUTE, json=resume, headers={"Accept": "text/event-stream"},
                          timeout=60) as response:
            lines = response.iter_lines()  # kept: a closed line iterator closes the response (the client leaves)
            next(line for line in lines if "RUN_STARTED" in line)
            _wait_for_a_lease(s3)
            os.killpg(PIDS[holder], signal.SIGKILL)
        killed_at = time.monotonic()
        assert code(post(b, resume)[1]) == "THREAD_BUSY"
        while time.monotonic() - killed_at < LEASE_SECONDS + 3:
            time.sleep(0.5)
        _, events = post(b, resume)
        assert code(events) != "THREAD_BUSY", "the dead holder's lease expired"
        assert booked(events) or code(events) == "INTERRUPT_NOT_FOUND", events[-1]


def _wait_for_a_lease(s3: dict[str, str]) -> None:
    client = s3_client(s3)
    deadline = time.monotonic() + 30
    while not client.list_objects_v2(Bucket=BUCKET, Prefix="pauses/leases/").get("KeyCount"):
        assert time.monotonic() < deadline, "the resume never took the lease"
        time.sleep(0.05)


def test_an_unreachable_store_is_a_session_error_without_a_hang(s3: dict[str, str], tmp_path: Path) -> None:
    gone = {**s3, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}  # nothing listens there
    with serve(f"s3://{BUCKET}/pauses", cwd=_dir(tmp_path / "d"), env=gone) as url:
        started = time.monotonic()
        _, events = post(url, _ask())
        assert code(events) == "SESSION_ERROR", events[-1]
        assert time.monotonic() - started < 30
