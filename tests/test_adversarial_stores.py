"""Issue 25, the event stores under attack and faults, over HTTP with the real parts: uvicorn on loopback (in
this process, or ``strands-agui serve`` workers), Debian's redis-server (killed, restarted, frozen), two
principals (bearer tokens, ``tests/principal_app.py``). Each case asserts isolation, a clear 4xx or a documented
RUN_ERROR code, no 5xx (but the documented 503 while Redis is down), no hang, nothing lost. The store-level
cases (no HTTP): tests/test_event_stores.py; the table of cases: docs/reliability.md.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator

import httpx
import pytest

from strands_agui.server.endpoint import create_strands_app
from strands_agui.server.events import EventStore, MemoryEvents
from strands_agui.server.redis_events import RedisEvents
from strands_agui.server.resumable import Resumable
from tests.live import LiveServer
from tests.oracles import assert_valid_sse
from tests.support.redis import RedisServer, redis_server
from tests.support.resumable import SSE, Gate, frames, gated_agent, run_body

pytestmark = pytest.mark.usefixtures("no_server_errors")
needs_redis = pytest.mark.skipif(not shutil.which("redis-server"), reason="redis-server: make tools installs it")
ANSWER = " ".join(f"word{n}" for n in range(40)) + "."  # 40 deltas after the gate: appended while readers write


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    if not shutil.which("redis-server"):
        pytest.skip("redis-server: make tools installs it")
    with redis_server() as server:
        yield server


def make_store(kind: str, redis: RedisServer | None) -> EventStore:
    if kind == "memory":
        return MemoryEvents()
    assert redis is not None
    return RedisEvents(redis.url)


@pytest.mark.parametrize("kind", ["memory", pytest.param("redis", marks=needs_redis)])
def test_60_followers_of_a_live_run_each_get_every_event_and_its_own_end(
        kind: str, request: pytest.FixtureRequest) -> None:
    """60 clients GET a live run's events (no Last-Event-ID) while its tool waits; the run then streams 40
    deltas and ends. Each follower gets the run's own events, all of them, ending with its RUN_FINISHED (the
    memory store's follower used to stop when the run stopped running, before sending what came meanwhile)."""
    redis = request.getfixturevalue("redis") if kind == "redis" else None
    gate, followers = Gate(), 60
    app = create_strands_app(gated_agent(gate, ANSWER), resumable=Resumable(make_store(kind, redis)))
    with LiveServer(app) as server:
        posted: dict[str, httpx.Response] = {}
        poster = threading.Thread(target=lambda: posted.setdefault("run", httpx.post(
            server.url + "/", json=run_body("f-1"), headers=SSE, timeout=60)))
        poster.start()
        assert gate.entered.wait(10)
        attached = threading.Barrier(followers + 1, timeout=30)
        bodies: list[bytes] = [b""] * followers

        def follow(n: int) -> None:
            with httpx.stream("GET", f"{server.url}/runs/f-1/events", params={"protocolVersion": "1.0"},
                              headers=SSE, timeout=60) as response:
                assert response.status_code == 200
                chunks = response.iter_raw()
                while b"TOOL_CALL_END" not in bodies[n]:  # the events stored before the gate: attached
                    bodies[n] += next(chunks)
                attached.wait()
                for chunk in chunks:
                    bodies[n] += chunk

        readers = [threading.Thread(target=follow, args=(n,)) for n in range(followers)]
        for reader in readers:
            reader.start()
        attached.wait()
        gate.opened.set()
        for reader in readers:
            reader.join(60)
        poster.join(60)
    whole = frames(posted["run"].content)
    assert whole[-1][1]["type"] == "RUN_FINISHED" and ANSWER.split()[-1] in posted["run"].text
    ends = [frames(body)[-1][1].get("code") or frames(body)[-1][1]["type"] for body in bodies]
    assert ends == ["RUN_FINISHED"] * followers, {end: ends.count(end) for end in ends}
    assert all(frames(body) == whole for body in bodies)
    assert_valid_sse(bodies[0], fail_on_run_error=True)
