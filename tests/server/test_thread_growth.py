"""Long threads (issue 30): a client holding its server-side thread gets no snapshot of it (its marker
``forwardedProps.strandsAgui.holds``), messages are paged by the thread API, a run writes only what it adds
(chunks, then the one publishing record), two runs at once on one thread are ``THREAD_BUSY``, and threads kept by
the previous layout (the messages in the record) are still read. A real ``strands.Agent`` with a scripted model;
every stream through both oracles, the official client starting from what the client holds.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import RunAgentInput
from fastapi import FastAPI
from strands import Agent

from strands_agui import FileSessions, S3Sessions, StrandsAgent
from strands_agui.runtime.storage.sessions import SessionStore, session_id
from strands_agui.runtime.storage.threads import CHUNK, StoredThread, Threads, owner_of
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.oracles import assert_valid_stream
from tests.support.s3 import BUCKET, MotoS3, aws_env, moto_s3

ANSWER = "noted."


def adapter(store: SessionStore, delay: float = 0.0) -> StrandsAgent:
    model = ScriptedModel(lambda _messages: [Text(ANSWER)], delay=delay)
    return StrandsAgent(Agent(model=model, callback_handler=None), sessions=store, threads=True)


def user(text: str) -> dict[str, Any]:
    return {"id": f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}


def body(thread: str, *messages: dict[str, Any], holds: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"threadId": thread, "runId": f"r-{uuid.uuid4().hex[:8]}", "state": {},
                           "messages": list(messages), "tools": [], "context": []}
    if holds is not None:
        out["forwardedProps"] = {"strandsAgui": {"holds": holds}}
    return out


async def run(agent: StrandsAgent, sent: dict[str, Any], held: list[dict[str, Any]],
              check: bool = True) -> tuple[list[Any], Any]:
    """The run's events and what the official client holds after it, starting from ``held`` (what it holds
    locally: with a marker, more than it sends); ``check=False``: no oracle, what the server holds."""
    events = [e async for e in agent.run(RunAgentInput.model_validate(sent))]
    if not check:
        assert events[-1].type == "RUN_FINISHED", events[-1]
        stored = agent.thread_store().load(sent["threadId"], None)  # type: ignore[union-attr]
        return events, stored.messages if stored is not None else []
    report = assert_valid_stream(events, input={**sent, "messages": held})
    return events, report["messages"]


def wire_bytes(events: list[Any]) -> int:
    return sum(len(e.model_dump_json(by_alias=True, exclude_none=True)) for e in events)


def marker(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"lastMessageId": messages[-1]["id"], "messages": len(messages)}


class Counted(FileSessions):
    """Files, counting what each thread write and read moves."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory)
        self.written: list[tuple[str, int]] = []
        self.read: list[str] = []

    def thread_write(self, key: str, data: bytes) -> None:
        self.written.append((key, len(data)))
        super().thread_write(key, data)

    def thread_read(self, key: str) -> bytes | None:
        self.read.append(key)
        return super().thread_read(key)


async def grow(agent: StrandsAgent, thread: str, runs: int) -> list[dict[str, Any]]:
    """``runs`` runs on ``thread``, each sending only its new message with the marker; what the client holds."""
    _, held = await run(agent, body(thread, first := user("hello")), [first])
    for i in range(runs - 1):
        new = user(f"message {i}")
        events, held = await run(agent, body(thread, new, holds=marker(held)), [*held, new], check=i >= runs - 3)
        assert not any(e.type == "MESSAGES_SNAPSHOT" for e in events), "the client holds the thread: no snapshot"
    return held


@pytest.mark.slow  # 60-100 runs
async def test_a_client_holding_the_thread_gets_no_snapshot_and_the_same_bytes_at_any_length(tmp_path: Path) -> None:
    agent = adapter(FileSessions(tmp_path))
    held = await grow(agent, "t", 3)
    new = user("short thread")
    short, _ = await run(agent, body("t", new, holds=marker(held)), [*held, new])
    held = await grow(agent, "u", 60)
    stored = agent.thread_store().load("u", None)  # type: ignore[union-attr]
    assert stored is not None and [m["id"] for m in held] == [m["id"] for m in stored.messages]
    new = user("long thread")
    long, after = await run(agent, body("u", new, holds=marker(held)), [*held, new])
    assert abs(wire_bytes(long) - wire_bytes(short)) < 200, (wire_bytes(short), wire_bytes(long))
    assert [m["id"] for m in after] == [m["id"] for m in agent.thread_store().load("u", None).messages]  # type: ignore[union-attr]


async def test_the_first_load_and_a_divergent_client_get_the_full_snapshot(tmp_path: Path) -> None:
    agent = adapter(FileSessions(tmp_path))
    held = await grow(agent, "t", 3)
    stale = held[:2]  # another browser holds the thread as it was two runs ago
    new = user("from the other browser")
    events, after = await run(agent, body("t", new, holds=marker(stale)), [*stale, new])
    assert any(e.type == "MESSAGES_SNAPSHOT" for e in events)
    stored = agent.thread_store().load("t", None)  # type: ignore[union-attr]
    assert stored is not None and [m["id"] for m in after] == [m["id"] for m in stored.messages]
    new = user("a fresh page, no marker")
    events, after = await run(agent, body("t", new), [new])
    assert any(e.type == "MESSAGES_SNAPSHOT" for e in events)
    assert [m["id"] for m in after] == [m["id"] for m in agent.thread_store().load("t", None).messages]  # type: ignore[union-attr]
    changed = {**stored.messages[0], "content": "rewritten"}
    events, after = await run(agent, body("t", changed, user("x"), holds=marker(after)), [*after])
    assert any(e.type == "MESSAGES_SNAPSHOT" for e in events), "a changed copy of a stored message: the stored wins"
    assert after[0]["content"] == "hello"


@pytest.mark.slow  # 60-100 runs
async def test_a_run_writes_what_it_adds_whatever_the_thread_length(tmp_path: Path) -> None:
    store = Counted(tmp_path)
    agent = adapter(store)
    per_run: list[int] = []
    held = await grow(agent, "t", 2)
    for i in range(3 * CHUNK):
        new = user(f"more {i}")
        store.written.clear()
        _, held = await run(agent, body("t", new, holds=marker(held)), [*held, new], check=False)
        per_run.append(sum(size for _, size in store.written))
    record = json.loads((tmp_path / "threads" / owner_of(None) / "records" / f"{session_id('t')}.json").read_bytes())
    assert record["count"] == len(held) and "messages" not in record
    whole = len(json.dumps(held))
    assert max(per_run) < whole / 2, (max(per_run), whole)
    early, late = per_run[:CHUNK // 2], per_run[-CHUNK // 2:]
    assert max(late) <= max(early) * 2.5 + 500, "bytes per run do not grow with the thread"
    store.read.clear()
    new = user("cached")
    await run(agent, body("t", new, holds=marker(held)), [*held, new])
    assert [k for k in store.read if "/chunks/" in k] == [], "this worker's copy of the thread: no chunk read"


async def test_two_runs_at_once_on_one_thread_the_second_is_thread_busy(tmp_path: Path) -> None:
    agent = adapter(FileSessions(tmp_path), delay=0.05)
    first: AsyncIterator[Any] = agent.run(RunAgentInput.model_validate(body("t", user("slow"))))
    seen = [await anext(first)]
    while seen[-1].type != "TEXT_MESSAGE_CONTENT":
        seen.append(await anext(first))
    second = [e async for e in agent.run(RunAgentInput.model_validate(body("t", user("at once"))))]
    assert second[-1].type == "RUN_ERROR" and second[-1].code == "THREAD_BUSY", second[-1]
    seen += [e async for e in first]
    assert seen[-1].type == "RUN_FINISHED"
    again = [e async for e in agent.run(RunAgentInput.model_validate(body("t", user("after"))))]
    assert again[-1].type == "RUN_FINISHED", "the hold is released with the run"
    assert [m["content"] for m in agent.thread_store().load("t", None).messages if m["role"] == "user"] == \
        ["slow", "after"]  # type: ignore[union-attr]


def test_a_keep_that_dies_before_its_record_leaves_the_thread_whole(tmp_path: Path) -> None:
    store = FileSessions(tmp_path)
    threads = Threads(store)
    messages = [{"id": f"m{i}", "role": "user", "content": f"m {i}"} for i in range(CHUNK + 3)]
    threads.keep(StoredThread("t", None, messages))

    class Dies(FileSessions):
        def thread_write(self, key: str, data: bytes) -> None:
            if "/records/" in key:
                raise OSError("killed")
            super().thread_write(key, data)

    dying = Threads(Dies(tmp_path))
    before = dying.load("t", None)
    assert before is not None
    with pytest.raises(OSError):
        dying.keep(StoredThread("t", None, [*messages[:2], {"id": "x", "role": "user", "content": "branch"}]),
                   before)
    assert Threads(FileSessions(tmp_path)).load("t", None).messages == messages  # type: ignore[union-attr]


def test_a_thread_of_the_previous_layout_is_read_and_moved_to_chunks(tmp_path: Path) -> None:
    store = FileSessions(tmp_path)
    sid, owner = session_id("old", "alice"), owner_of("alice")
    messages = [{"id": "u", "role": "user", "content": "kept in the record"}]
    store.thread_write(f"{owner}/records/{sid}.json", json.dumps({
        "threadId": "old", "principal": "alice", "messages": messages, "state": {"a": 1}, "interrupts": [],
        "title": "kept", "updated": 5.0}).encode())
    threads = Threads(store)
    kept = threads.load("old", "alice")
    assert kept is not None and kept.messages == messages and kept.state == {"a": 1}
    threads.keep(StoredThread("old", "alice", [*messages, {"id": "a", "role": "assistant", "content": "ok"}]), kept)
    assert "chunks" in json.loads(store.thread_read(f"{owner}/records/{sid}.json") or b"{}")
    assert [m["id"] for m in threads.load("old", "alice").messages] == ["u", "a"]  # type: ignore[union-attr]
    assert threads.delete("old", "alice") and threads.load("old", "alice") is None
    assert store.thread_names(f"{owner}/chunks/{sid}/", "", 10) == []


# The thread API's pages of messages, and its cursor (``before``) under attack.


@pytest.fixture()
def api(tmp_path: Path) -> Iterator[tuple[StrandsAgent, httpx.AsyncClient]]:
    agent = adapter(FileSessions(tmp_path))
    app = FastAPI()
    add_strands_fastapi_endpoint(app, agent, "/chat")
    yield agent, httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


async def test_messages_are_paged_with_before_and_limit(api: tuple[StrandsAgent, httpx.AsyncClient]) -> None:
    agent, client = api
    held = await grow(agent, "t", 6)  # 12 messages
    whole = (await client.get("/chat/threads/t")).json()
    assert [m["id"] for m in whole["messages"]] == [m["id"] for m in held] and whole["nextBefore"] is None
    assert whole["holds"] == marker(held)
    pages, before = [], None
    while True:
        params: dict[str, Any] = {"limit": 5, **({"before": before} if before else {})}
        page = (await client.get("/chat/threads/t", params=params)).json()
        assert len(page["messages"]) <= 5 and page["holds"] == marker(held)
        pages.insert(0, page["messages"])
        before = page["nextBefore"]
        if before is None:
            break
    assert [m for p in pages for m in p] == whole["messages"] and len(pages) == 3
    new = user("after a paged restore")
    events, _ = await run(agent, body("t", new, holds=page["holds"]), [*pages[-1], new])
    assert not any(e.type == "MESSAGES_SNAPSHOT" for e in events), "the marker of the restore: no snapshot"


@pytest.mark.parametrize(("params", "status", "names"), [
    ({"before": "no-such-message"}, 400, "before"),
    ({"before": ""}, 400, "before"),
    ({"before": "ü-non-ascii"}, 400, "before"),
    ({"before": "x" * 201}, 400, "before"),
    ({"before": "a\nb"}, 400, "before"),
    ({"limit": 0}, 422, "limit"),
    ({"limit": 100000}, 422, "limit"),
    ({"limit": "many"}, 422, "limit"),
])
async def test_a_bad_before_or_limit_is_refused_naming_it(api: tuple[StrandsAgent, httpx.AsyncClient],
                                                           params: dict[str, Any], status: int, names: str) -> None:
    agent, client = api
    await grow(agent, "t", 2)
    answer = await client.get("/chat/threads/t", params=params)
    assert answer.status_code == status and names in answer.text, answer.text


async def test_another_threads_message_is_no_cursor(api: tuple[StrandsAgent, httpx.AsyncClient]) -> None:
    agent, client = api
    other = await grow(agent, "other", 2)
    await grow(agent, "t", 2)
    answer = await client.get("/chat/threads/t", params={"before": other[0]["id"], "limit": 2})
    assert answer.status_code == 400 and "before" in answer.json()["detail"]


@pytest.mark.parametrize("holds", [
    "last", {"lastMessageId": "m", "messages": -1}, {"lastMessageId": "m", "messages": True},
    {"lastMessageId": 5, "messages": 2}, {"lastMessageId": None, "messages": 3}, {"lastMessageId": "m"},
    {"lastMessageId": "m", "messages": 1, "extra": 1},
])
async def test_a_malformed_marker_is_refused_naming_it(api: tuple[StrandsAgent, httpx.AsyncClient],
                                                       holds: Any) -> None:
    _, client = api
    sent = body("t", user("hi"))
    sent["forwardedProps"] = {"strandsAgui": {"holds": holds}}
    answer = await client.post("/chat", json=sent, headers={"Accept": "text/event-stream"})
    assert answer.status_code == 422 and "holds" in answer.text, answer.text


# The same on S3 (moto's server): what a run writes, and the hold across workers.


@pytest.fixture(scope="module")
def s3() -> Iterator[MotoS3]:
    with moto_s3() as server, aws_env(server):
        yield server


@pytest.mark.slow
async def test_on_s3_a_run_writes_what_it_adds_and_a_second_run_is_thread_busy(s3: MotoS3) -> None:
    store = S3Sessions(BUCKET, f"g-{uuid.uuid4().hex[:8]}", lease_seconds=5)
    written: list[int] = []
    write = store.thread_write

    def counted(key: str, data: bytes) -> None:
        written.append(len(data))
        write(key, data)

    store.thread_write = counted  # type: ignore[method-assign]
    agent = adapter(store)
    held = await grow(agent, "t", 2)
    sizes = []
    for i in range(CHUNK + 8):
        new = user(f"more {i}")
        written.clear()
        _, held = await run(agent, body("t", new, holds=marker(held)), [*held, new], check=False)
        sizes.append(sum(written))
    assert max(sizes) < len(json.dumps(held)) / 2
    fresh = Threads(S3Sessions(BUCKET, store.prefix))  # another worker: no cache, reads the chunks
    assert [m["id"] for m in fresh.load("t", None).messages] == [m["id"] for m in held]  # type: ignore[union-attr]
    slow = adapter(store, delay=0.05)
    first = slow.run(RunAgentInput.model_validate(body("t", user("slow"))))
    while (await anext(first)).type != "TEXT_MESSAGE_CONTENT":
        pass
    other = adapter(S3Sessions(BUCKET, store.prefix))
    second = [e async for e in other.run(RunAgentInput.model_validate(body("t", user("at once"))))]
    assert second[-1].type == "RUN_ERROR" and second[-1].code == "THREAD_BUSY"
    rest = [e async for e in first]
    assert rest[-1].type == "RUN_FINISHED"
    await asyncio.sleep(0)


# Strands' conversation managers on a server-side thread: the model is sent the window, the thread keeps all.


async def test_a_sliding_window_is_what_the_model_sees_while_the_thread_keeps_everything(tmp_path: Path) -> None:
    from strands.agent.conversation_manager import SlidingWindowConversationManager

    seen: list[int] = []

    def count(messages: Any) -> Any:
        seen.append(len(messages))
        return [Text(ANSWER)]

    template = Agent(model=ScriptedModel(count), callback_handler=None,
                     conversation_manager=SlidingWindowConversationManager(window_size=4))
    agent = StrandsAgent(template, sessions=FileSessions(tmp_path), threads=True)
    held = await grow(agent, "t", 8)
    assert seen[:3] == [1, 3, 5], "below the window, the whole thread"
    assert max(seen) == 5 and seen[-1] == 5, f"the window (4) and the new message, never the thread: {seen}"
    stored = agent.thread_store().load("t", None)  # type: ignore[union-attr]
    assert stored is not None and len(stored.messages) == 16 == len(held), "the thread keeps every message"


@pytest.mark.slow  # a summary per overflow, 8 runs
async def test_a_summary_is_kept_with_the_thread_and_replaces_what_it_summarized(tmp_path: Path) -> None:
    from strands.agent.conversation_manager import SummarizingConversationManager
    from strands.types.exceptions import ContextWindowOverflowException

    seen: list[list[str]] = []
    summaries: list[int] = []

    def model(messages: Any) -> Any:
        texts = [b.get("text", "") for m in messages for b in m["content"] if "text" in b]
        if texts and texts[-1] == "Please summarize this conversation.":
            summaries.append(len(messages) - 1)
            return [Text(f"SUMMARY of {len(messages) - 1}")]
        if len(messages) > 9:
            raise ContextWindowOverflowException("too long for the scripted model")
        seen.append(texts)
        return [Text(ANSWER)]

    manager = SummarizingConversationManager(summary_ratio=0.5, preserve_recent_messages=2)
    template = Agent(model=ScriptedModel(model), callback_handler=None, conversation_manager=manager)
    agent = StrandsAgent(template, sessions=FileSessions(tmp_path), threads=True)
    await grow(agent, "t", 8)
    assert len(summaries) >= 1, "the history overflowed once: Strands summarized it"
    stored = agent.thread_store().load("t", None)  # type: ignore[union-attr]
    assert stored is not None and len(stored.messages) == 16, "the thread keeps every message"
    assert stored.conversation is not None and \
        stored.conversation["state"]["summary_message"]["content"][0]["text"].startswith("SUMMARY")
    assert seen[-1][0].startswith("SUMMARY"), f"the next run's model reads the kept summary first: {seen[-1]}"
    assert [len(texts) for texts in seen] == [1, 3, 5, 7, 9, 7, 9, 7], "summarized at 11, then read from the thread"
    assert len(summaries) == 2, f"one summary per overflow, not one per run from the whole thread: {summaries}"


@pytest.mark.parametrize("window", [1, 4, 9, 40])
def test_the_tail_a_window_keeps_is_the_window_of_the_whole_thread(window: int) -> None:
    """A sliding window's run converts only the thread's tail (issue 30: CPU per run), with the same result."""
    from strands.agent.conversation_manager import SlidingWindowConversationManager

    from strands_agui.runtime.building.conversation import conversation
    from strands_agui.runtime.planning import tail_history

    messages: list[dict[str, Any]] = []
    for i in range(30):
        messages.append({"id": f"u{i}", "role": "user", "content": f"ask {i}"})
        if i % 3 == 0:
            call = {"id": f"c{i}", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
            messages.append({"id": f"a{i}", "role": "assistant", "content": "calling", "toolCalls": [call]})
            if i % 2 == 0:
                messages.append({"id": f"t{i}", "role": "tool", "toolCallId": f"c{i}", "content": "sunny"})
            messages.append({"id": f"b{i}", "role": "assistant", "content": f"answer {i}"})
        elif i % 3 == 1:
            messages.append({"id": f"a{i}", "role": "assistant", "content": f"answer {i}"})
        # i % 3 == 2: two user messages in a row (merged by the conversion)
    messages.append({"id": "new", "role": "user", "content": "the new turn"})
    data = RunAgentInput.model_validate(body("t", *messages))

    def windowed(history: list[Any]) -> list[Any]:
        agent = Agent(messages=history, callback_handler=None,
                      conversation_manager=SlidingWindowConversationManager(window_size=window))
        agent.conversation_manager.apply_management(agent)
        return agent.messages

    assert windowed(tail_history(data, window)) == windowed(conversation(data).history)
    assert len(tail_history(data, 4)) < len(conversation(data).history) / 3, "only the tail was converted"
