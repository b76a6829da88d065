"""``make bench`` (threads part, issue 30): what one run costs on a thread of 10, 100 and 1,000 earlier messages.

Per run, in process, best of ``--rounds`` (CPU: ``time.process_time``, the store's work included):

* **floor**: a fresh ``strands.Agent`` given the history as Strands messages, ``stream_async`` read to the end
  (no adapter, nothing on the wire); **floor, window 40**: the same on the last 40 (what a long-lived Strands
  agent with the default ``SlidingWindowConversationManager`` holds between calls, and what ours sends the
  model with threads on, which honours the manager: docs/threads.md);
* **ours, threads off**: ``StrandsAgent.run`` on the whole history sent by the client (what ``HttpAgent`` sends),
  every event framed (``sse_frame``);
* **ours, threads on** (files; ``--s3``: S3 on a moto server too): the client sends its new message with its
  ``holds`` marker (docs/threads.md), the thread kept by the store; wire and storage bytes per run;
* **upstream** (``ag_ui_strands``, the bench extra; ``--no-upstream`` to skip): the whole history sent, framed by
  its ``EventEncoder``.

Wire bytes are the framed events of the run; storage bytes what the run wrote to the store (``thread_write``).
The agent answers a fixed sentence, so every run adds the same two messages. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from strands import Agent

from strands_agui import FileSessions, StrandsAgent
from strands_agui.runtime.storage.sessions import SessionStore
from strands_agui.runtime.storage.threads import StoredThread, Threads
from strands_agui.server.transport.streaming import sse_frame
from strands_agui.tooling.scripted import ScriptedModel, Text

ANSWER = "Noted: here is a short answer of about the length a chat answer has, one sentence or two of it."
WINDOW = 40  # Strands' default SlidingWindowConversationManager(window_size=40), which the template keeps
TEXT = "A user message of a realistic length, asking the assistant about something it said a few turns ago."


def history(n: int) -> list[dict[str, Any]]:
    """``n`` AG-UI messages, user and assistant in turn."""
    return [{"id": f"m-{i}", "role": "user" if i % 2 == 0 else "assistant",
             "content": f"{TEXT if i % 2 == 0 else ANSWER} ({i})"} for i in range(n)]


def strands_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": m["role"], "content": [{"text": m["content"]}]} for m in messages]


def template() -> Agent:
    return Agent(model=ScriptedModel(lambda _messages: [Text(ANSWER)]), callback_handler=None)


def body(thread: str, messages: list[dict[str, Any]], holds: dict[str, Any] | None = None) -> RunAgentInput:
    props = {"strandsAgui": {"holds": holds}} if holds is not None else {}
    return RunAgentInput.model_validate({"threadId": thread, "runId": f"r-{uuid.uuid4().hex[:8]}", "state": {},
                                         "messages": messages, "tools": [], "context": [], "forwardedProps": props})


class Counting:
    """Counts the bytes a store's ``thread_write`` is given (patched onto the store)."""

    def __init__(self, store: SessionStore) -> None:
        self.bytes = 0
        write = store.thread_write

        def counted(key: str, data: bytes) -> None:
            self.bytes += len(data)
            write(key, data)

        store.thread_write = counted  # type: ignore[method-assign]


def best(fn: Callable[[], tuple[int, int]], rounds: int) -> tuple[float, int, int]:
    """Best CPU seconds of ``rounds`` calls, and the wire and storage bytes of the last."""
    cpu, wire, stored = float("inf"), 0, 0
    for _ in range(rounds):
        start = time.process_time()
        wire, stored = fn()
        cpu = min(cpu, time.process_time() - start)
    return cpu, wire, stored


def floor(n: int, window: int | None = None) -> Callable[[], tuple[int, int]]:
    """A bare Strands run on ``n`` earlier messages (``window``: on the last ``window`` of them, what a
    long-lived agent holds between calls under ``SlidingWindowConversationManager(window_size=window)``)."""
    model, past = template().model, strands_history(history(n))
    if window is not None:
        past = past[-window:]

    async def go() -> None:
        agent = Agent(model=model, messages=[dict(m) for m in past], callback_handler=None)
        async for _ in agent.stream_async(TEXT):
            pass

    def once() -> tuple[int, int]:
        asyncio.run(go())
        return 0, 0

    return once


def stateless(adapter: Any, frame: Callable[[Any], Any], n: int) -> Callable[[], tuple[int, int]]:
    messages = [*history(n), {"id": "new", "role": "user", "content": TEXT}]

    async def go() -> int:
        return sum([len(frame(e)) async for e in adapter.run(body("t", messages))])

    return lambda: (asyncio.run(go()), 0)


def threaded(store: SessionStore, n: int) -> Callable[[], tuple[int, int]]:
    """Ours with threads on: a thread seeded with ``n`` messages; each run sends its new message and the marker
    of what the client holds (the thread grows by two messages a run: the same ``n`` give or take a round)."""
    counting = Counting(store)
    thread = f"t-{uuid.uuid4().hex[:8]}"
    Threads(store).keep(StoredThread(thread, None, history(n)), False)
    adapter = StrandsAgent(template(), sessions=store, threads=True)
    held = {"lastMessageId": f"m-{n - 1}", "messages": n}

    async def go() -> int:
        new = {"id": f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": TEXT}
        wire, last = 0, None
        async for event in adapter.run(body(thread, [new], held)):
            wire += len(sse_frame(event))
            last = getattr(event, "message_id", None) or last
        held.update(lastMessageId=last, messages=held["messages"] + 2)
        return wire

    def once() -> tuple[int, int]:
        counting.bytes = 0
        wire = asyncio.run(go())
        return wire, counting.bytes

    return once


@contextlib.contextmanager
def s3_store() -> Iterator[SessionStore]:
    from strands_agui import S3Sessions
    from tests.support.s3 import BUCKET, aws_env, moto_s3

    with moto_s3() as server, aws_env(server):
        yield S3Sessions(BUCKET, f"bench-{uuid.uuid4().hex[:6]}")


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--sizes", default="10,100,1000", help="earlier messages per thread, comma-separated")
    args.add_argument("--rounds", type=int, default=5)
    args.add_argument("--no-upstream", action="store_true")
    args.add_argument("--s3", action="store_true", help="also threads on S3 (a moto server)")
    opts = args.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",")]
    print("| messages | kind | CPU per run | x floor | wire bytes | storage bytes |\n|---:|---|---:|---:|---:|---:|")
    with contextlib.ExitStack() as stack:
        directory = stack.enter_context(tempfile.TemporaryDirectory())
        s3 = stack.enter_context(s3_store()) if opts.s3 else None
        for n in sizes:
            kinds: dict[str, Callable[[], tuple[int, int]]] = {
                "floor": floor(n),
                "floor, window 40": floor(n, WINDOW),
                "ours, threads off": stateless(StrandsAgent(template()), sse_frame, n),
                "ours, threads on (files)": threaded(FileSessions(directory), n),
            }
            if s3 is not None:
                kinds["ours, threads on (S3)"] = threaded(s3, n)
            if not opts.no_upstream:
                import ag_ui_strands  # the bench extra

                kinds["upstream"] = stateless(ag_ui_strands.StrandsAgent(template(), name="upstream"),
                                              EventEncoder(accept="text/event-stream").encode, n)
            results = {kind: best(fn, opts.rounds) for kind, fn in kinds.items()}
            base = results["floor"][0]
            for kind, (cpu, wire, stored) in results.items():
                print(f"| {n} | {kind} | {cpu * 1e3:.1f} ms | {cpu / base:.2f} | {wire} | {stored} |")


if __name__ == "__main__":
    main()
