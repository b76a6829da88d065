"""A run on a long server-side thread costs what a run on a short one costs (issue 30, item 5): with the client's
``holds`` marker, what this process learnt of the thread on its previous run (the validated messages, their ids,
the answered tool calls) is reused, and nothing of ours passes over the earlier messages one by one. Counted as
the lines of ``strands_agui`` a run executes (deterministic; no timing), on a real ``strands.Agent``.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput
from strands import Agent

import strands_agui
from strands_agui import FileSessions, StrandsAgent
from strands_agui.runtime.storage.threads import StoredThread, Threads
from strands_agui.tooling.scripted import ScriptedModel, Text

OURS = str(Path(strands_agui.__file__).parent)


def history(n: int) -> list[dict[str, Any]]:
    """``n`` messages: user and assistant in turn, every fifth assistant turn a tool call and its result."""
    out: list[dict[str, Any]] = []
    while len(out) < n:
        i = len(out)
        out.append({"id": f"u{i}", "role": "user", "content": f"question {i}"})
        if i % 10 == 0:
            out.append({"id": f"a{i}", "role": "assistant", "toolCalls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]})
            out.append({"id": f"t{i}", "role": "tool", "toolCallId": f"c{i}", "content": "found"})
        out.append({"id": f"b{i}", "role": "assistant", "content": f"answer {i}"})
    return out


def lines_per_run(tmp_path: Path, n: int) -> int:
    """The lines of ours the third run on a thread of ``n`` earlier messages executes (the first two warm the
    process' caches, as a served thread's earlier runs do)."""
    store = FileSessions(tmp_path / str(n))
    thread = f"t-{n}"
    seeded = history(n)
    Threads(store).keep(StoredThread(thread, None, seeded), False)
    agent = StrandsAgent(Agent(model=ScriptedModel(lambda _m: [Text("ok")]), callback_handler=None),
                         sessions=store, threads=True)
    held = {"lastMessageId": seeded[-1]["id"], "messages": len(seeded)}
    counted = 0

    def trace(frame: Any, event: str, _arg: Any) -> Any:
        nonlocal counted
        if frame.f_code.co_filename.startswith(OURS):
            counted += event == "line"
            return trace
        return None

    async def one(traced: bool) -> None:
        sent = {"threadId": thread, "runId": f"r-{uuid.uuid4().hex[:8]}", "state": {}, "tools": [], "context": [],
                "messages": [{"id": f"n-{uuid.uuid4().hex[:8]}", "role": "user", "content": "and now?"}],
                "forwardedProps": {"strandsAgui": {"holds": dict(held)}}}
        if traced:
            sys.settrace(trace)
        try:
            events = [e async for e in agent.run(RunAgentInput.model_validate(sent))]
        finally:
            sys.settrace(None)
        assert events[-1].type == "RUN_FINISHED", events[-1]
        assert not any(e.type == "MESSAGES_SNAPSHOT" for e in events)  # the client holds the thread
        last = [e for e in events if e.type == "TEXT_MESSAGE_END"][-1].message_id
        held.update(lastMessageId=last, messages=held["messages"] + 2)

    for traced in (False, False, True):
        asyncio.run(one(traced))
    return counted


def test_a_run_on_a_long_thread_executes_what_a_run_on_a_short_one_does(tmp_path: Path) -> None:
    short, long = lines_per_run(tmp_path, 150), lines_per_run(tmp_path, 1_200)
    assert abs(long - short) <= 40, (short, long)  # not per earlier message (1,050 more of them)
