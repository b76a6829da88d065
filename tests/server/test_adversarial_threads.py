"""Threads and S3 under attack and faults (issue 25): a real S3 (moto's server, a process of its own on loopback,
frozen with SIGSTOP and killed with SIGKILL), two principals (bearer tokens), the app served by uvicorn.

Each case asserts what the client gets (a documented ``RUN_ERROR`` code, a 4xx, or the documented 503 for an
unavailable store), that it gets it within the documented bound (``S3Sessions.call_seconds``: attempts x
(connect + read timeout)), that no principal sees another's threads, and that nothing kept is lost. The table of
cases is in docs/reliability.md ("Adversarial cases (issue 25): threads and S3").
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from strands.session import FileSessionManager, S3SessionManager
from strands.types.session import Session, SessionAgent, SessionType

from strands_agui import FileSessions, S3Sessions
from strands_agui.examples.human_in_the_loop import build_agent
from strands_agui.runtime.storage.sessions import SessionStore, session_id
from strands_agui.runtime.storage.threads import StoredThread, Threads, owner_of
from strands_agui.server.app import add_ping
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from tests.support.agents import echo_model, strands_agent
from tests.support.live import LiveServer
from tests.support.principal_app import principal
from tests.support.s3 import BUCKET, MotoS3, aws_env, moto_s3, recorded_s3_requests
from tests.support.workers import ROUTE, held_messages, serve

pytestmark = pytest.mark.slow  # a moto process; each frozen-store case waits out the store's timeouts

ALICE, BOB = "alice-token", "bob-token"
LEASE_SECONDS = 2.0
SLACK = 2.0  # seconds beyond the documented bound: a loaded 2-core machine
SPEAKING = 0.1  # seconds per chunk of a resumed model's answer (S3 freezes or dies while it speaks)


@pytest.fixture(scope="module")
def s3() -> Iterator[MotoS3]:
    with moto_s3() as server, aws_env(server):
        yield server


def hitl_app(delay: float = 0.0, cooldown: float = 5.0, threads: bool = True) -> tuple[FastAPI, S3Sessions]:
    """The human_in_the_loop example with server-side threads in S3 (a fresh prefix: each test its own store,
    its own breaker), behind the two bearer tokens."""
    store = S3Sessions(BUCKET, f"t-{uuid.uuid4().hex[:8]}", lease_seconds=LEASE_SECONDS, cooldown=cooldown)
    agent = build_agent(env={"STRANDS_AGUI_SCRIPTED_DELAY": str(delay)})
    agent.sessions, agent.threads = store, threads
    app = FastAPI()
    add_ping(app)
    add_strands_fastapi_endpoint(app, agent, ROUTE, auth=principal)
    return app, store


def headers(token: str) -> dict[str, str]:
    return {"Accept": "text/event-stream", "Authorization": f"Bearer {token}"}


def ask(thread: str | None = None, city: str = "Porto") -> dict[str, Any]:
    return {"threadId": thread or f"t-{uuid.uuid4().hex}", "runId": f"r-{uuid.uuid4().hex[:8]}",
            "messages": [{"id": "u1", "role": "user", "content": f"fly me to {city}"}]}


def post(url: str, body: dict[str, Any], token: str = ALICE) -> list[dict[str, Any]]:
    response = httpx.post(url + ROUTE, json=body, headers=headers(token), timeout=120)
    assert response.status_code == 200, response.text
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


def paused(url: str, token: str = ALICE) -> dict[str, Any]:
    """A paused run's resume request (approving the booking)."""
    first = ask()
    events = post(url, first, token)
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    return {**first, "runId": "r2", "messages": held_messages(first, events),
            "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]}


def code(events: list[dict[str, Any]]) -> str | None:
    return events[-1].get("code") if events[-1]["type"] == "RUN_ERROR" else None


def stream_until(url: str, body: dict[str, Any], event_type: str, then: Any) -> tuple[list[dict[str, Any]], float]:
    """Stream a run; at its first ``event_type`` call ``then()``; the run's events and the seconds from then to
    its last event."""
    events: list[dict[str, Any]] = []
    at = None
    with httpx.stream("POST", url + ROUTE, json=body, headers=headers(ALICE), timeout=120) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if at is None and events[-1]["type"] == event_type:
                    then()
                    at = time.monotonic()
                if events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"):
                    break
    assert at is not None, [e["type"] for e in events]
    return events, time.monotonic() - at


def speaking(events: list[dict[str, Any]]) -> float:
    """How long the scripted model spoke (``SPEAKING`` per chunk): Strands writes its message once it is done."""
    return SPEAKING * sum(e["type"] == "TEXT_MESSAGE_CONTENT" for e in events)


def test_s3_frozen_mid_resume_ends_session_error_within_the_bound_and_keeps_the_thread(s3: MotoS3) -> None:
    # the resumed model's words come slowly: S3 freezes while it speaks; the breaker closes with the lease
    app, store = hitl_app(delay=SPEAKING, cooldown=LEASE_SECONDS)
    with LiveServer(app) as server:
        resume = paused(server.url)
        try:
            events, took = stream_until(server.url, resume, "TEXT_MESSAGE_CONTENT", s3.freeze)
        finally:
            s3.thaw()
        assert code(events) == "SESSION_ERROR", events[-1]  # was STRANDS_ERROR (Strands' own write timed out)
        assert took < store.call_seconds + SLACK + speaking(events), f"{took:.1f} s"
        time.sleep(LEASE_SECONDS + 0.5)  # the failed run could not release its lease: it expires (the breaker closes)
        kept = httpx.get(f"{server.url}{ROUTE}/threads/{resume['threadId']}", headers=headers(ALICE))
        assert kept.status_code == 200 and kept.json()["messages"][0]["content"] == "fly me to Porto"
        again = post(server.url, resume)
        assert again[-1]["type"] == "RUN_FINISHED" or code(again) == "INTERRUPT_NOT_FOUND", again[-1]


def test_s3_frozen_while_a_new_run_speaks_ends_session_error_when_its_pause_is_kept(s3: MotoS3) -> None:
    app, store = hitl_app(delay=SPEAKING)
    with LiveServer(app) as server:
        try:
            events, took = stream_until(server.url, ask(), "TEXT_MESSAGE_CONTENT", s3.freeze)
        finally:
            s3.thaw()
    assert code(events) == "SESSION_ERROR", events[-1]  # parking the pause, then keeping the thread, failed
    assert took < store.call_seconds + SLACK + speaking(events), f"{took:.1f} s"


@pytest.mark.parametrize("threads", [True, False], ids=["thread-read-first", "lease-first"])
def test_s3_frozen_when_a_resume_starts_ends_session_error_within_the_bound(s3: MotoS3, threads: bool) -> None:
    app, store = hitl_app(threads=threads)  # threads off: the resume's first S3 call is taking the lease
    with LiveServer(app) as server:
        resume = paused(server.url)
        with s3.frozen():
            started = time.monotonic()
            events = post(server.url, resume)
            took = time.monotonic() - started
        assert code(events) == "SESSION_ERROR", events[-1]
        assert took < store.call_seconds + SLACK, f"{took:.1f} s"


def test_s3_killed_mid_run_ends_session_error() -> None:
    with moto_s3() as s3, aws_env(s3):
        app, store = hitl_app(delay=SPEAKING)
        with LiveServer(app) as server:
            resume = paused(server.url)
            events, took = stream_until(server.url, resume, "TEXT_MESSAGE_CONTENT", s3.kill)
    assert code(events) == "SESSION_ERROR", events[-1]  # was STRANDS_ERROR (EndpointConnectionError)
    assert took < store.call_seconds + SLACK + speaking(events), f"{took:.1f} s"


def test_frozen_s3_thread_routes_answer_503_within_the_bound(s3: MotoS3) -> None:
    app, store = hitl_app()
    with LiveServer(app) as server:
        thread = ask()["threadId"]
        base = f"{server.url}{ROUTE}/threads"
        with s3.frozen():
            for method, url in (("GET", base), ("GET", f"{base}/{thread}"), ("DELETE", f"{base}/{thread}")):
                started = time.monotonic()
                answer = httpx.request(method, url, headers=headers(ALICE), timeout=120)
                took = time.monotonic() - started
                assert answer.status_code == 503 and "session store" in answer.json()["detail"], answer.text
                assert took < store.call_seconds + SLACK, f"{method} {url}: {took:.1f} s"


def test_a_brownout_of_40_list_calls_starves_nothing_else(s3: MotoS3, tmp_path: Path) -> None:
    app, store = hitl_app()
    chat = strands_agent(echo_model(), sessions=FileSessions(tmp_path), threads=False)
    add_strands_fastapi_endpoint(app, chat, "/chat", auth=principal)  # a sync auth: FastAPI's thread pool
    with LiveServer(app) as server, ThreadPoolExecutor(max_workers=40) as pool:
        with s3.frozen():
            started = time.monotonic()
            lists = [pool.submit(_timed_list, server.url, token) for token in [ALICE, BOB] * 20]
            time.sleep(0.5)  # every list call is waiting on the frozen store
            ping = time.monotonic()
            assert httpx.get(server.url + "/ping", timeout=30).status_code == 200
            ran = httpx.post(server.url + "/chat", json=ask(), headers=headers(BOB), timeout=60)
            served = time.monotonic() - ping
            assert ran.status_code == 200 and '"RUN_FINISHED"' in ran.text
            assert served < 3.0, f"/ping and a run took {served:.1f} s beside 40 list calls on a frozen store"
            answers = [call.result() for call in lists]
        bound = 2 * store.call_seconds + SLACK  # a wait for one of the routes' threads, then one call
        assert all(status == 503 for status, _ in answers), answers
        assert max(took for _, took in answers) < bound, f"{max(t for _, t in answers):.1f} s after {started}"


def test_runs_on_a_frozen_store_never_block_the_event_loop(s3: MotoS3) -> None:
    """Runs whose thread and pause live in a frozen S3 wait for it in worker threads: the loop stays free. Before,
    a run's store calls (the thread's read, the pause's open, the keep) ran on the event loop: /ping waited out
    each call's timeouts (about 4 s) behind them."""
    app, store = hitl_app(cooldown=0.0)  # no breaker: every run's calls meet the frozen store
    with LiveServer(app) as server, ThreadPoolExecutor(max_workers=4) as pool:
        with s3.frozen():
            runs = [pool.submit(post, server.url, ask(), token) for token in [ALICE, BOB] * 2]
            time.sleep(0.5)  # every run is waiting on the frozen store
            slowest = 0.0
            for _ in range(5):
                started = time.monotonic()
                assert httpx.get(server.url + "/ping", timeout=30).status_code == 200
                slowest = max(slowest, time.monotonic() - started)
                time.sleep(0.2)
            ended = [run.result() for run in runs]
    # blocked, /ping waited out the store calls' timeouts (about 4 s); free, it answers at once, which a machine
    # running other jobs can stretch past a second (1.04 s seen): the bound sits between the two
    assert slowest < 2.0, f"/ping took {slowest:.1f} s beside 4 runs on a frozen store"
    assert all(code(events) == "SESSION_ERROR" for events in ended), [e[-1] for e in ended]


def _timed_list(url: str, token: str) -> tuple[int, float]:
    started = time.monotonic()
    answer = httpx.get(f"{url}{ROUTE}/threads", headers=headers(token), timeout=120)
    return answer.status_code, time.monotonic() - started


FORGED = {
    "5,000 nested [ (was 500 RecursionError)": base64.urlsafe_b64encode(b"[" * 5000).decode(),
    "not base64": "not a cursor!",
    "the old shape, valid base64 JSON": base64.urlsafe_b64encode(json.dumps([1e308, "x"]).encode()).decode(),
    "a JSON object": base64.urlsafe_b64encode(b'{"threadId": "x", "updated": 1}').decode(),
    "JSON nulls": base64.urlsafe_b64encode(b"[null, null]").decode(),
    "non-ASCII": "\u00e9\u00e8\u4e2d" * 10,
    "8 KB": "0" * 8192,
    "NUL": "0000000000000000-agui-u-" + "0" * 39 + "\x00",
    "a path": "../../alice/index/0",
}


def test_forged_cursors_are_400_and_another_principals_cursor_lists_only_your_own(s3: MotoS3) -> None:
    app, store = hitl_app()
    threads = Threads(store)
    mine = {who: [f"{who}-{i}-{uuid.uuid4().hex[:6]}" for i in range(3)] for who in ("alice", "bob")}
    for who, ids in mine.items():
        for thread_id in ids:
            threads.keep(StoredThread(thread_id, who, [{"id": "u", "role": "user", "content": "hi"}]))
    with LiveServer(app) as server:
        base = f"{server.url}{ROUTE}/threads"
        for case, cursor in FORGED.items():
            answer = httpx.get(base, params={"cursor": cursor}, headers=headers(ALICE))
            assert answer.status_code == 400 and "cursor" in answer.json()["detail"], (case, answer.text)
        alices = httpx.get(base, params={"limit": 1}, headers=headers(ALICE)).json()
        assert alices["nextCursor"] and alices["threads"][0]["threadId"] == mine["alice"][-1]
        theirs = alices["nextCursor"]
        for cursor in (theirs, "0" * 16 + theirs[16:], "9" * 16 + theirs[16:]):
            page = httpx.get(base, params={"cursor": cursor, "limit": 100}, headers=headers(BOB))
            assert page.status_code == 200, page.text
            assert {t["threadId"] for t in page.json()["threads"]} <= set(mine["bob"]), "only bob's own"


class CountedFiles(FileSessions):
    """A file store counting what the thread layer reads (the store boundary: the reads themselves are real)."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory)
        self.read: list[str] = []

    def thread_read(self, key: str) -> bytes | None:
        self.read.append(key)
        return super().thread_read(key)

    def thread_names(self, folder: str, after: str, count: int) -> list[str]:
        self.read.append(folder)
        return super().thread_names(folder, after, count)


def seeded(store: SessionStore) -> Threads:
    """30 threads of alice's, then 2 of bob's."""
    threads = Threads(store)
    for i in range(30):
        threads.keep(StoredThread(f"a-{i}", "alice", [{"id": "u", "role": "user", "content": f"alice {i}"}]))
    for i in range(2):
        threads.keep(StoredThread(f"b-{i}", "bob", [{"id": "u", "role": "user", "content": f"bob {i}"}]))
    return threads


def test_listing_reads_the_callers_records_only(s3: MotoS3) -> None:
    threads = seeded(S3Sessions(BUCKET, f"t-{uuid.uuid4().hex[:8]}"))
    with recorded_s3_requests() as sent:
        found, cursor = threads.page("bob", 20)
    assert [t.thread_id for t in found] == ["b-1", "b-0"] and cursor is None
    assert len(sent.keys("LIST")) == 1 and len(sent.keys("GET")) == 2, sent.seen  # was 1 LIST + 32 GETs
    bobs = {key.split("/")[2] for _, key in sent.seen}
    assert len(bobs) == 1, f"every request within bob's folder: {sent.seen}"
    with recorded_s3_requests() as sent:
        found, cursor = threads.page("alice", 5)
    assert [t.thread_id for t in found] == [f"a-{i}" for i in range(29, 24, -1)] and cursor is not None
    assert len(sent.keys("LIST")) == 1 and len(sent.keys("GET")) == 5, sent.seen
    seen = []
    while cursor is not None:
        page, cursor = threads.page("alice", 7, cursor)
        seen += [t.thread_id for t in page]
    assert seen == [f"a-{i}" for i in range(24, -1, -1)], "every thread once, in order, across pages"


def test_listing_on_files_reads_the_callers_folder_only(tmp_path: Path) -> None:
    store = CountedFiles(tmp_path)
    threads = seeded(store)
    store.read.clear()
    found, cursor = threads.page("bob", 20)
    assert [t.thread_id for t in found] == ["b-1", "b-0"] and cursor is None
    assert len(store.read) == 3 and len({key.split("/")[0] for key in store.read}) == 1, store.read
    store.read.clear()
    found, cursor = threads.page("alice", 5)
    assert len(found) == 5 and len(store.read) == 6 and cursor is not None


@pytest.mark.parametrize("kind", ["s3", "files"])
def test_a_thread_of_the_old_layout_is_read_and_moved_by_its_next_keep(s3: MotoS3, tmp_path: Path, kind: str) -> None:
    sid = session_id("old", "alice")
    store: SessionStore
    if kind == "s3":
        store = S3Sessions(BUCKET, f"t-{uuid.uuid4().hex[:8]}")
        old: Any = S3SessionManager("agui-threads", BUCKET, f"{store.prefix}/threads")  # how 0.1.0 kept threads
    else:
        store = FileSessions(tmp_path)
        old = FileSessionManager("agui-threads", storage_dir=str(tmp_path / "threads"))
    old.create_session(Session(session_id=sid, session_type=SessionType.AGENT))
    old.create_agent(sid, SessionAgent(agent_id="agui", conversation_manager_state={}, state={
        "threadId": "old", "principal": "alice", "messages": [{"id": "u", "role": "user", "content": "before"}],
        "state": None, "interrupts": [], "title": "before", "updated": 1.0}))
    threads = Threads(store)
    assert threads.load("old", "bob") is None
    kept = threads.load("old", "alice")
    assert kept is not None and kept.messages[0]["content"] == "before"
    assert threads.page("alice")[0] == [], "not listed until its next run"
    threads.keep(kept)
    assert [t.thread_id for t in threads.page("alice")[0]] == ["old"]
    assert store.thread_read(f"session_{sid}/agents/agent_agui/agent.json") is None, "the old layout's objects are gone"
    assert threads.delete("old", "alice") and threads.load("old", "alice") is None


def test_two_workers_page_with_each_others_cursors(s3: MotoS3) -> None:
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    env = {**s3.env, "STRANDS_AGUI_THREADS": "1"}
    with serve(f"s3://{BUCKET}/{prefix}", 2, "tests.support.threads_app:app", env=env) as url:
        ids = [f"w-{i}-{uuid.uuid4().hex[:6]}" for i in range(5)]
        for thread_id in ids:
            answer = httpx.post(url + "/chat", json=ask(thread_id), headers=headers(ALICE), timeout=60)
            assert answer.status_code == 200 and '"RUN_FINISHED"' in answer.text
        listed: list[str] = []
        cursor = None
        for _ in range(10):  # each page on a new connection: either worker
            params = {"limit": 1, **({"cursor": cursor} if cursor else {})}
            page = httpx.get(f"{url}/chat/threads", params=params, headers=headers(ALICE)).json()
            listed += [t["threadId"] for t in page["threads"]]
            cursor = page["nextCursor"]
            if cursor is None:
                break
        assert listed == ids[::-1]
        assert not httpx.get(f"{url}/chat/threads", headers=headers(BOB)).json()["threads"]


def test_entries_left_by_a_crash_or_a_race_list_each_thread_once(tmp_path: Path) -> None:
    store = FileSessions(tmp_path)
    threads = Threads(store)
    thread = StoredThread("t", "alice", [{"id": "u", "role": "user", "content": "hi"}])
    threads.keep(thread)
    (first,) = store.thread_names(f"{owner_of('alice')}/index/", "", 10)
    threads.keep(thread)  # a second run: a new entry, the first removed
    (second,) = store.thread_names(f"{owner_of('alice')}/index/", "", 10)
    store.thread_write(f"{owner_of('alice')}/index/{first}", b"")  # a race left the older entry behind
    newer = f"{int(second[:16]) - 5:016d}{second[16:]}"  # a keep under way: its entry is in, its record not yet
    store.thread_write(f"{owner_of('alice')}/index/{newer}", b"")
    found, cursor = threads.page("alice")
    assert [t.thread_id for t in found] == ["t"] and cursor is None
    assert store.thread_names(f"{owner_of('alice')}/index/", "", 10) == sorted([newer, second]), \
        "the older entry removed; the one of a keep under way kept (removed only after an hour)"
