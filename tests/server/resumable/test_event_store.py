"""The in-memory event store's promises, driven directly (no HTTP): a follower ends with the run's own terminal
event even when events arrive while it is suspended; a live run is never evicted (new runs are refused with
``RunLimit`` instead, per principal and in total); the store is bounded in bytes as well as in runs. Over HTTP,
with Redis and two workers: tests/server/test_adversarial_stores.py.
"""

from __future__ import annotations

import json
import sys

import pytest

from strands_agui.server.resumable.event_store import MemoryEvents, RunExists, RunLimit, Stored
from tests.support.paths import REPO


def event(kind: str, text: str = "") -> tuple[str, str]:
    return json.dumps({"type": kind, "delta": text}), kind


async def test_a_follower_gets_what_was_appended_while_it_was_suspended_then_the_terminal_event() -> None:
    """The follower yields event 1; while it is suspended (its client's write), the run appends two more events,
    its terminal one, and closes. The follower must still send them (it used to see ``not running`` and stop:
    the reconnecting client got RUN_LOST instead of RUN_FINISHED)."""
    store = MemoryEvents()
    log = await store.open("k", None, lambda: None)
    log.append(*event("RUN_STARTED"))
    follower = store.follow("k", 0)
    first = await anext(follower)
    log.append(*event("TEXT_MESSAGE_CONTENT", "late"))
    log.append(*event("RUN_FINISHED"))
    await log.close()
    rest = [item async for item in follower]
    assert [e.seq for e in [first, *rest]] == [1, 2, 3]
    assert rest[-1].kind == "RUN_FINISHED"


async def test_a_follower_that_fell_behind_the_cap_stops_instead_of_skipping_events() -> None:
    store = MemoryEvents(max_events=3)
    log = await store.open("k", None, lambda: None)
    log.append(*event("RUN_STARTED"))
    follower = store.follow("k", 0)
    assert (await anext(follower)).seq == 1
    for n in range(5):
        log.append(*event("TEXT_MESSAGE_CONTENT", str(n)))  # events 2 and 3 dropped while it was suspended
    assert [item async for item in follower] == []  # the caller reports RUN_LOST; never a gap


async def test_another_principals_runs_never_evict_a_live_run() -> None:
    store = MemoryEvents(max_runs=10)
    alice = await store.open("alice-run", "alice", lambda: None)
    alice.append(*event("RUN_STARTED"))
    for n in range(30):  # bob's tiny runs, each ended at once
        log = await store.open(f"bob-{n}", "bob", lambda: None)
        log.append(*event("RUN_FINISHED"))
        await log.close()
    assert await store.known("alice-run", "alice")
    assert await store.cancel("alice-run", "alice") == "requested"
    with pytest.raises(RunExists):
        await store.open("alice-run", "alice", lambda: None)
    assert len(store.runs) <= 10


async def test_a_full_store_of_live_runs_refuses_new_runs_and_keeps_every_live_one() -> None:
    store = MemoryEvents(max_runs=4, max_live_runs_per_principal=100)
    for n in range(4):
        await store.open(f"live-{n}", f"p{n}", lambda: None)
    with pytest.raises(RunLimit) as refused:
        await store.open("one-more", "p9", lambda: None)
    assert refused.value.limit == "runs" and refused.value.maximum == 4
    assert all([await store.known(f"live-{n}", f"p{n}") for n in range(4)])


async def test_a_principal_is_refused_past_its_live_runs_and_others_are_not() -> None:
    store = MemoryEvents(max_live_runs_per_principal=2)
    logs = [await store.open(f"a-{n}", "alice", lambda: None) for n in range(2)]
    with pytest.raises(RunLimit) as refused:
        await store.open("a-2", "alice", lambda: None)
    assert refused.value.limit == "live_runs_per_principal" and refused.value.maximum == 2
    await store.open("b-0", "bob", lambda: None)  # bob is not affected by alice's runs
    await logs[0].close()  # an ended run no longer counts
    await store.open("a-2", "alice", lambda: None)


async def test_the_anonymous_principal_is_bounded_only_by_the_total() -> None:
    """Without ``auth`` every caller is the one anonymous principal: a per-principal limit would be a total."""
    store = MemoryEvents(max_runs=5, max_live_runs_per_principal=2)
    for n in range(5):
        await store.open(f"anon-{n}", None, lambda: None)
    with pytest.raises(RunLimit):
        await store.open("anon-5", None, lambda: None)


async def test_120_runs_with_a_900_kb_state_stay_within_the_byte_bound() -> None:
    bound = 16 * 1024 * 1024
    store = MemoryEvents(max_bytes=bound)
    state = json.dumps({"type": "STATE_SNAPSHOT", "snapshot": {"blob": "x" * 900_000}})
    for n in range(120):
        log = await store.open(f"big-{n}", "bob", lambda: None)
        log.append(*event("RUN_STARTED"))
        log.append(state, "STATE_SNAPSHOT")
        log.append(*event("RUN_FINISHED"))
        await log.close()
        assert store.bytes <= bound
    kept = sum(sys.getsizeof(e.data) for run in store.runs.values() for e in run.events)
    assert kept <= store.bytes <= bound  # the accounting covers what is held
    assert 10 <= len(store.runs) < 20  # the newest ended runs, as many as fit
    assert await store.known("big-119", "bob") and not await store.known("big-0", "bob")


async def test_live_runs_filling_the_bytes_refuse_new_runs() -> None:
    store = MemoryEvents(max_bytes=4_000_000, max_run_bytes=2_000_000)
    big = json.dumps({"type": "STATE_SNAPSHOT", "snapshot": {"blob": "x" * 1_900_000}})
    for n in range(2):
        log = await store.open(f"live-{n}", f"p{n}", lambda: None)
        log.append(big, "STATE_SNAPSHOT")
    log = await store.open("third", "p2", lambda: None)  # under the bound still: taken
    log.append(big, "STATE_SNAPSHOT")  # over: this run drops its own oldest events, never another's
    assert store.bytes <= 4_000_000 + 2_000_000
    with pytest.raises(RunLimit) as refused:
        await store.open("fourth", "p3", lambda: None)
    assert refused.value.limit == "bytes"
    assert all([await store.known(f"live-{n}", f"p{n}") for n in range(2)])


async def test_a_live_run_over_its_byte_budget_drops_its_oldest_events() -> None:
    store = MemoryEvents(max_run_bytes=1_000_000)
    log = await store.open("long", None, lambda: None)
    chunk = json.dumps({"type": "TEXT_MESSAGE_CONTENT", "delta": "y" * 100_000})
    for _ in range(30):
        log.append(chunk, "TEXT_MESSAGE_CONTENT")
    first, last, ended, _ = await store.bounds("long")
    assert last == 30 and 1 < first and not ended
    assert store.runs["long"].bytes <= 1_000_000
    assert [s.seq for s in store.runs["long"].events] == list(range(first, 31))
    assert isinstance(store.runs["long"].events[0], Stored)


def test_the_docs_list_every_refusal_code() -> None:
    import re

    from strands_agui.errors import REFUSAL_CODES

    errors = (REPO / "docs" / "errors.md").read_text()
    table = re.search(r"<!-- refusal-codes:start -->(.*?)<!-- refusal-codes:end -->", errors, re.S)
    assert table is not None
    assert dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", table.group(1), re.M)) == REFUSAL_CODES


def test_the_environment_sets_the_per_principal_limit_and_redis_connections(monkeypatch: pytest.MonkeyPatch) -> None:
    """``strands-agui serve --resumable`` has no flag for them: each worker reads them from the environment."""
    from strands_agui.environment import ServeEnvironment
    from strands_agui.server.resumable.redis_store import RedisEvents
    from strands_agui.server.resumable.run_routes import from_environment

    monkeypatch.setenv("STRANDS_AGUI_RESUMABLE", "1")
    monkeypatch.setenv("STRANDS_AGUI_MAX_LIVE_RUNS_PER_PRINCIPAL", "7")
    memory = from_environment(ServeEnvironment.from_env())
    assert memory is not None and isinstance(memory.store, MemoryEvents)
    assert memory.store.max_live_runs_per_principal == 7
    monkeypatch.setenv("STRANDS_AGUI_EVENTS", "redis://127.0.0.1:1/0")
    redis = from_environment(ServeEnvironment.from_env())
    assert redis is not None and isinstance(redis.store, RedisEvents)
    assert redis.store.max_live_runs_per_principal == 7
    assert redis.store.max_connections == 50  # redis-py's BlockingConnectionPool's default
    monkeypatch.setenv("STRANDS_AGUI_REDIS_MAX_CONNECTIONS", "12")
    redis = from_environment(ServeEnvironment.from_env())
    assert redis is not None and isinstance(redis.store, RedisEvents) and redis.store.max_connections == 12
    again = from_environment(ServeEnvironment.from_env())  # another endpoint of the worker: the same pool
    assert again is not None and again is not redis and again.store is redis.store
