"""A request is prepared once, into one frozen run plan (``core/plan.py``, ``runtime/planning.py``), which the
opening, the translator and the runtime read (issue 27, item 4). Before, a request's input went back and forth:
the Strands conversation was derived twice per run (the prompt, then the agent's history), and the thread's
messages were dumped to JSON twice per run, even with server-side threads off."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

from strands_agui import FileSessions, StrandsAgent
from strands_agui.core.plan import RunPlan
from strands_agui.runtime import server_thread as threads_module
from strands_agui.runtime.building import conversation as conversation_module
from strands_agui.tooling.testing import dump_events
from tests.support.scenarios import BY_NAME

MESSAGES = [{"id": "u1", "role": "user", "content": "What is the weather?"},
            {"id": "a1", "role": "assistant", "content": "Where?"},
            {"id": "u2", "role": "user", "content": "In Paris"}]


def request(run_id: str = "r1", messages: list[dict[str, Any]] | None = None) -> RunAgentInput:
    return RunAgentInput.model_validate({"threadId": "t-plan", "runId": run_id, "state": {}, "tools": [],
                                         "context": [], "forwardedProps": {}, "messages": messages or MESSAGES})


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> Counter[int]:
    """Count the calls of ``module.name`` by the id of their first argument."""
    calls: Counter[int] = Counter()
    original = getattr(module, name)

    def counted(first: Any, *args: Any, **kwargs: Any) -> Any:
        calls[id(first)] += 1
        return original(first, *args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


async def run(adapter: StrandsAgent, data: RunAgentInput) -> list[dict[str, Any]]:
    return dump_events([event async for event in adapter.run(data)])


async def test_the_conversation_is_derived_once_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    converted = counting(monkeypatch, conversation_module, "_convert")
    data = request()
    events = await run(StrandsAgent(BY_NAME["plain_text"].agent(), threads=False), data)
    assert events[-1]["type"] == "RUN_FINISHED"
    assert converted, "the history was converted"
    assert set(converted.values()) == {1}, "a message of the input was converted more than once"


async def test_with_threads_off_no_message_is_dumped(monkeypatch: pytest.MonkeyPatch) -> None:
    dumped = counting(monkeypatch, threads_module, "as_json")
    events = await run(StrandsAgent(BY_NAME["plain_text"].agent(), threads=False), request())
    assert events[-1]["type"] == "RUN_FINISHED"
    assert not dumped


async def test_with_threads_on_each_sent_message_is_dumped_once(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    sessions = FileSessions(tmp_path)
    first = request("r1", MESSAGES[:1])
    await run(StrandsAgent(BY_NAME["plain_text"].agent(), threads=True, sessions=sessions), first)
    dumped = counting(monkeypatch, threads_module, "as_json")
    second = request("r2", [*MESSAGES[:1], {"id": "u9", "role": "user", "content": "And tomorrow?"}])
    events = await run(StrandsAgent(BY_NAME["plain_text"].agent(), threads=True, sessions=sessions), second)
    assert events[-1]["type"] == "RUN_FINISHED"
    assert [dumped[id(message)] for message in second.messages] == [1, 1]


async def test_the_opening_and_the_translator_read_the_plan() -> None:
    adapter = StrandsAgent(BY_NAME["plain_text"].agent())
    planned = adapter.plan(request())
    assert dataclasses.is_dataclass(planned) and RunPlan.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert planned.prompt == ({"text": "In Paris"},) and [m["role"] for m in planned.history] == ["user", "assistant"]
    opening = adapter.opening(planned)
    opening.start()
    translator = opening.translator(planned_facts := opening.facts)
    assert opening.plan is planned and translator.input is planned.input
    assert translator.frontend_tools is planned.frontend_tools and planned_facts.parked is None
