"""Issue 30, item 1: ``GET {path}/threads/{id}`` names the thread's live run (``liveRun``) while a resumable run
of the caller's is on it, so a page reloaded mid-run, on another CopilotKit runtime or after one restarted,
attaches to it by id (``GET {path}/runs/{runId}/events`` from its start). Over HTTP (uvicorn on loopback), with
the memory and the Redis event stores; never another principal's run, none without resumable runs or threads,
none once the run kept the thread. The store-level promises are at the end (no HTTP)."""

from __future__ import annotations

import asyncio
import shutil
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from strands import Agent

from strands_agui import FileSessions, StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.server.resumable.event_store import EventStore, MemoryEvents
from strands_agui.server.resumable.redis_store import RedisEvents
from strands_agui.server.resumable.run_routes import LIVE_MESSAGES_BYTES, Resumable
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import CURRENT, LEGACY, assert_valid_sse, check_ag_ui_validate, check_official_client
from tests.support.live import LiveServer
from tests.support.principal_app import principal
from tests.support.redis import RedisServer, redis_server
from tests.support.resumable import SSE, Gate, frames, reconnect, run_body

pytestmark = pytest.mark.usefixtures("no_server_errors")
needs_redis = pytest.mark.skipif(not shutil.which("redis-server"), reason="redis-server: make tools installs it")
KINDS = ["memory", pytest.param("redis", marks=needs_redis)]
ALICE, BOB = {"Authorization": "Bearer alice-token"}, {"Authorization": "Bearer bob-token"}


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    if not shutil.which("redis-server"):
        pytest.skip("redis-server: make tools installs it")
    with redis_server() as server:
        yield server


def make_store(kind: str, request: pytest.FixtureRequest) -> EventStore:
    if kind == "memory":
        return MemoryEvents()
    return RedisEvents(request.getfixturevalue("redis").url, prefix=f"live-{uuid.uuid4().hex[:8]}", timeout=20.0)


def gated(gate: Gate) -> StrandsAgent:
    """Says a few words, waits in ``gate``'s tool (a fresh call id each run), then answers."""

    def turn(messages: list[dict[str, Any]]) -> list[Any]:
        if any("toolResult" in block for block in messages[-1]["content"]):
            return [Text("Through the gate.")]
        return [Text("Waiting at the gate."), ToolUse("wait_for_gate", {})]

    return StrandsAgent(Agent(model=ScriptedModel(turn), tools=[gate.tool()], callback_handler=None), name="gated")


class Served:
    """A gated agent behind bearer tokens, threads in ``sessions`` (None: threads off), runs resumable in
    ``store`` (None: not resumable); ``post`` runs in a thread of its own while the test looks at the thread."""

    def __init__(self, tmp: Path | None, store: EventStore | None) -> None:
        self.gate = Gate()
        options: dict[str, Any] = {"auth": principal}
        if tmp is not None:
            options.update(sessions=FileSessions(tmp), threads=True)
        if store is not None:
            options["resumable"] = Resumable(store)
        self.server = LiveServer(create_strands_app(gated(self.gate), **options))
        self.url = ""
        self.posts: list[threading.Thread] = []
        self.answers: dict[str, httpx.Response] = {}

    def __enter__(self) -> Served:
        self.url = self.server.__enter__().url
        return self

    def __exit__(self, *exc: Any) -> None:
        self.gate.opened.set()
        for post in self.posts:
            post.join(30)
        self.server.__exit__(*exc)

    def post(self, body: dict[str, Any], headers: dict[str, str] = ALICE) -> None:
        """Start a run; returns once it waits at the gate (the gate is shut again first)."""
        self.gate.opened.clear()
        self.gate.entered.clear()

        def run() -> None:
            self.answers[body["runId"]] = httpx.post(self.url + "/", json=body, headers={**SSE, **headers},
                                                     timeout=60)

        post = threading.Thread(target=run)
        self.posts.append(post)
        post.start()
        assert self.gate.entered.wait(20), "the run never reached its gate"

    def release(self) -> httpx.Response:
        """Open the gate; the answer of the run that waited there."""
        self.gate.opened.set()
        post = self.posts[-1]
        post.join(30)
        assert not post.is_alive()
        return list(self.answers.values())[-1]

    def thread(self, thread_id: str, headers: dict[str, str] = ALICE) -> httpx.Response:
        return httpx.get(f"{self.url}/threads/{thread_id}", headers=headers, timeout=20)


@pytest.mark.parametrize("kind", KINDS)
def test_the_thread_names_its_live_run_until_it_ends_and_attaching_gives_the_whole_run(
        kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    thread_id = f"t-{uuid.uuid4().hex[:8]}"
    with Served(tmp_path, make_store(kind, request)) as served:
        first = run_body("r-1", "first question", thread_id)
        served.post(first)
        view = served.thread(thread_id)  # its first run: nothing kept yet, the live run is all there is
        assert view.status_code == 200, view.text
        body = view.json()
        assert body["messages"] == [] and body["pendingInterrupts"] == [] and body["title"] == "first question"
        assert body["liveRun"]["runId"] == "r-1" and body["liveRun"]["startedAt"].endswith("Z")
        assert body["liveRun"]["messages"] == first["messages"]
        answer = served.release()
        assert frames(answer.content)[-1][1]["type"] == "RUN_FINISHED"
        ended = served.thread(thread_id).json()
        assert "liveRun" not in ended, "the run ended: no live run"
        held = ended["messages"]
        assert [m["role"] for m in held][0] == "user" and held[-1]["content"] == "Through the gate."

        # the next run, sent the whole thread as CopilotKit sends it: only its new message is the live run's
        second = {**run_body("r-2", "second question", thread_id)}
        second["messages"] = [*held, *second["messages"]]
        served.post(second)
        live = served.thread(thread_id).json()
        assert live["messages"] == held
        assert live["liveRun"]["runId"] == "r-2"
        assert [m["content"] for m in live["liveRun"]["messages"]] == ["second question"]
        answer_id = next(m["id"] for m in held if m["role"] == "assistant")
        rated = httpx.post(f"{served.url}/threads/{thread_id}/feedback", headers=ALICE, timeout=10,
                           json={"messageId": answer_id, "rating": "up"})
        assert rated.status_code == 200, rated.text
        assert served.thread(thread_id).json()["liveRun"]["runId"] == "r-2", "feedback changed the thread, not the run"
        attached: dict[str, httpx.Response] = {}
        followers = [threading.Thread(target=lambda v=version: attached.setdefault(str(v), reconnect(
            served.url, "r-2", None, headers=ALICE, protocol_version=v))) for version in ("1.0", None)]
        for follower in followers:
            follower.start()
        served.release()
        for follower in followers:
            follower.join(30)
        whole = attached["1.0"]
        assert whole.status_code == 200, whole.text
        events = [event for _, event in frames(whole.content)]
        assert events[0]["type"] == "RUN_STARTED" and events[0]["runId"] == "r-2", "from the run's first event"
        assert events[-1]["type"] == "RUN_FINISHED"
        assert [e["type"] for e in events] == [e["type"] for _, e in frames(served.answers["r-2"].content)]
        assert_valid_sse(whole.content, fail_on_run_error=True)
        assert "liveRun" not in served.thread(thread_id).json()
        # what a page attaching to it holds (strands-runner.mjs, the console): the thread and the run's new
        # messages after its RUN_STARTED, then the rest; each generation's client ends with every message once
        restored = {"type": "MESSAGES_SNAPSHOT", "messages": [*live["messages"], *live["liveRun"]["messages"]]}
        final = served.thread(thread_id).json()["messages"]
        for version, client in (("1.0", CURRENT), ("None", LEGACY)):
            run = [event for _, event in frames(attached[version].content)]
            page = [run[0], restored, *run[1:]]
            check_ag_ui_validate(page)
            report = check_official_client(page, fail_on_run_error=True, client=client)
            assert [m["id"] for m in report["messages"]] == [m["id"] for m in final], version


@pytest.mark.parametrize("kind", KINDS)
def test_another_principal_never_sees_the_live_run(kind: str, request: pytest.FixtureRequest,
                                                   tmp_path: Path) -> None:
    thread_id = f"t-{uuid.uuid4().hex[:8]}"
    with Served(tmp_path, make_store(kind, request)) as served:
        served.post(run_body("b-1", "bob asks", thread_id), BOB)  # bob's own thread of the same id, kept
        served.release()
        assert "liveRun" not in served.thread(thread_id, BOB).json()
        served.post(run_body("a-1", "alice asks", thread_id), ALICE)
        assert served.thread(thread_id, ALICE).json()["liveRun"]["runId"] == "a-1"
        bobs = served.thread(thread_id, BOB)
        assert bobs.status_code == 200 and "liveRun" not in bobs.json(), "alice's run is not bob's thread's"
        assert [m["content"] for m in bobs.json()["messages"]][0] == "bob asks"
        other = f"t-{uuid.uuid4().hex[:8]}"
        served.release()
        served.post(run_body("a-2", "alice again", other), ALICE)
        assert served.thread(other, BOB).status_code == 404, "bob: no such thread, not alice's live run"
        assert httpx.get(f"{served.url}/threads/{other}", timeout=10).status_code == 401
        assert served.thread(other, ALICE).json()["liveRun"]["runId"] == "a-2"
        served.release()


@pytest.mark.parametrize(("threads", "resumable"), [(False, True), (True, False)], ids=["no-threads", "no-store"])
def test_no_live_run_without_threads_or_without_resumable_runs(threads: bool, resumable: bool,
                                                               tmp_path: Path) -> None:
    thread_id = f"t-{uuid.uuid4().hex[:8]}"
    with Served(tmp_path if threads else None, MemoryEvents() if resumable else None) as served:
        if threads:
            served.post(run_body("k-1", "earlier question", thread_id))
            served.release()
        served.post(run_body("k-2", "a question", thread_id))
        view = served.thread(thread_id)
        if threads:  # what is kept, and no live run: nothing to attach to
            assert view.status_code == 200 and "liveRun" not in view.json()
        else:  # the thread API is off: every thread 404, live or not
            assert view.status_code == 404
        served.release()


def test_the_live_runs_new_messages_are_bounded(tmp_path: Path) -> None:
    """A run sent more than ``LIVE_MESSAGES_BYTES`` of new messages is named without them (the page shows them
    when the run keeps the thread); the hostile ids of the route are refused as ever."""
    thread_id = f"t-{uuid.uuid4().hex[:8]}"
    with Served(tmp_path, MemoryEvents()) as served:
        served.post(run_body("big-1", "x" * (LIVE_MESSAGES_BYTES + 10), thread_id))
        live = served.thread(thread_id).json()["liveRun"]
        assert live["runId"] == "big-1" and live["messages"] == []
        assert served.thread("bad id!").status_code == 422
        assert served.thread(thread_id + "x").status_code == 404
        served.release()


# ---- the stores, no HTTP ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
async def test_a_store_names_a_threads_run_only_while_it_is_live(kind: str, request: pytest.FixtureRequest) -> None:
    store = make_store(kind, request)
    assert await store.thread_run("thread:a/t") is None
    first = await store.open("a/r1", None, lambda: None)
    await store.mark_thread("thread:a/t", "a/r1", '{"runId": "r1"}')
    assert await store.thread_run("thread:a/t") == '{"runId": "r1"}'
    assert await store.thread_run("thread:a/other") is None
    second = await store.open("a/r2", None, lambda: None)
    await store.mark_thread("thread:a/t", "a/r2", '{"runId": "r2"}')  # a later run replaces it
    first.append('{"type": "RUN_FINISHED"}', "RUN_FINISHED")
    await first.close()
    assert await store.thread_run("thread:a/t") == '{"runId": "r2"}', "the earlier run's end leaves the later one"
    second.append('{"type": "RUN_FINISHED"}', "RUN_FINISHED")
    await second.close()
    assert await store.thread_run("thread:a/t") is None
    await store.mark_thread("thread:a/t", "a/r2", '{"runId": "r2"}')  # an ended run (a late mark) names nothing
    assert await store.thread_run("thread:a/t") is None


def test_an_event_store_that_is_down_leaves_the_thread_restorable_without_its_live_run(tmp_path: Path) -> None:
    """A worker whose Redis is unreachable still restores the kept thread (200, no ``liveRun``), in the Redis
    client's own time bound, instead of failing the restore with the store."""
    thread_id = f"t-{uuid.uuid4().hex[:8]}"
    with Served(tmp_path, MemoryEvents()) as served:
        served.post(run_body("kept-1", "kept question", thread_id))
        served.release()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with Served(tmp_path, RedisEvents(f"redis://127.0.0.1:{port}/0", timeout=1.0)) as down:
        view = down.thread(thread_id)
        assert view.status_code == 200, view.text
        assert "liveRun" not in view.json() and view.json()["messages"][0]["content"] == "kept question"


@pytest.mark.slow
@needs_redis
async def test_redis_keeps_naming_a_run_that_outlives_its_ttl(request: pytest.FixtureRequest) -> None:
    """The thread's key expires ``ttl`` after it was written unless the run's heartbeat refreshes it: a run
    longer than the store's ``ttl`` is still its thread's live run."""
    store = RedisEvents(request.getfixturevalue("redis").url, prefix=f"live-{uuid.uuid4().hex[:8]}", ttl=2)
    log = await store.open("a/long", None, lambda: None)
    await store.mark_thread("thread:a/t", "a/long", '{"runId": "long"}')
    await asyncio.sleep(4.5)  # past twice the ttl: refreshed by the heartbeats
    assert await store.thread_run("thread:a/t") == '{"runId": "long"}'
    log.append('{"type": "RUN_FINISHED"}', "RUN_FINISHED")
    await log.close()
    assert await store.thread_run("thread:a/t") is None


def test_the_openapi_document_describes_live_run(tmp_path: Path) -> None:
    """(Building the document of a resumable app used to raise: the reconnect route named no status code.)"""
    app = create_strands_app(gated(Gate()), sessions=FileSessions(tmp_path), threads=True, resumable=True)
    schemas = app.openapi()["components"]["schemas"]
    view = next(s for name, s in schemas.items() if name.startswith("ThreadView"))
    assert "liveRun" in view["properties"] and "liveRun" not in view.get("required", [])
    live = next(s for name, s in schemas.items() if name.startswith("LiveRun"))
    assert set(live["properties"]) == {"runId", "startedAt", "messages"}


@needs_redis
def test_another_server_on_the_same_redis_names_the_run_and_attaches_to_it(request: pytest.FixtureRequest,
                                                                           tmp_path: Path) -> None:
    """The run goes on server A; a page reloaded onto server B (same Redis, same thread storage) is told of it
    and follows it there to its end."""
    url, prefix = request.getfixturevalue("redis").url, f"live-{uuid.uuid4().hex[:8]}"
    thread_id = f"t-{uuid.uuid4().hex[:8]}"
    with Served(tmp_path, RedisEvents(url, prefix=prefix, timeout=20.0)) as a, \
            Served(tmp_path, RedisEvents(url, prefix=prefix, timeout=20.0)) as b:
        a.post(run_body("x-1", "asked on a", thread_id))
        live = b.thread(thread_id).json()["liveRun"]
        assert live["runId"] == "x-1" and [m["content"] for m in live["messages"]] == ["asked on a"]
        followed: dict[str, httpx.Response] = {}
        follower = threading.Thread(target=lambda: followed.setdefault("b", reconnect(b.url, "x-1", None,
                                                                                      headers=ALICE)))
        follower.start()
        a.release()
        follower.join(30)
        assert frames(followed["b"].content) == frames(a.answers["x-1"].content)
        assert "liveRun" not in b.thread(thread_id).json()
