"""Approvals with edited arguments (``runtime/building/approval.py``): the approval's ``responseSchema`` is
``{approved, reason?, arguments?}`` with the tool's own input schema for ``arguments``; approved with
``arguments`` the tool runs with them and the client's history shows them; arguments the tool's schema refuses
are ``RESUME_INVALID`` and nothing runs. A real Strands agent on the scripted model, a real ``FileSessions``
store, both oracles on every stream, and what the official client holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from strands_agui.runtime.building.approval import approval_schema
from strands_agui.runtime.storage.sessions import FileSessions
from tests.oracles import assert_valid_stream
from tests.support import hitl_scenarios
from tests.support.hitl import adapter_for, pause
from tests.support.hitl_scenarios import BY_NAME, book_flight, resume_input, wire
from tests.support.replays import collected

BOOK_SCHEMA = book_flight.tool_spec["inputSchema"]["json"]


pytestmark = pytest.mark.usefixtures("clear_executions")


def approve(interrupts: list[dict[str, Any]], **answer: Any) -> list[dict[str, Any]]:
    return [{"interruptId": i["id"], "status": "resolved", "payload": {"approved": True, **answer}}
            for i in interrupts]


def tool_call_arguments(messages: list[dict[str, Any]], call_id: str) -> Any:
    calls = [c for m in messages for c in m.get("toolCalls") or () if c["id"] == call_id]
    assert len(calls) == 1, messages
    return json.loads(calls[0]["function"]["arguments"])


async def test_the_approval_asks_for_the_tools_own_arguments(tmp_path: Path) -> None:
    events, _ = await pause(adapter_for(BY_NAME["approval_rejected"], FileSessions(tmp_path)))
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    schema = interrupt["responseSchema"]
    assert schema == approval_schema(BOOK_SCHEMA)
    assert set(schema["properties"]) == {"approved", "reason", "arguments"} and schema["required"] == ["approved"]
    assert schema["properties"]["arguments"]["required"] == ["city"]


async def test_approved_with_arguments_runs_them_and_the_client_holds_what_ran(tmp_path: Path) -> None:
    adapter = adapter_for(BY_NAME["approval_rejected"], FileSessions(tmp_path))
    events, held = await pause(adapter)
    assert tool_call_arguments(held, "tool-book") == {"city": "Lisbon"}  # what the model asked for
    resume = resume_input(held, approve(events[-1]["outcome"]["interrupts"], arguments={"city": "Porto"}))
    done = await collected(adapter, resume)
    assert hitl_scenarios.EXECUTIONS == ["book_flight:Porto"]
    snapshot = next(e for e in done if e["type"] == "MESSAGES_SNAPSHOT")
    assert tool_call_arguments(snapshot["messages"], "tool-book") == {"city": "Porto"}
    report = assert_valid_stream(done, input=wire(resume))
    assert report["outcome"] == "success"
    assert tool_call_arguments(report["messages"], "tool-book") == {"city": "Porto"}
    result = next(m for m in report["messages"] if m.get("toolCallId") == "tool-book")
    assert json.loads(result["content"])["reference"] == "FL-PORTO"


@pytest.mark.parametrize("arguments", [{"city": 5}, {}])
async def test_arguments_the_tool_refuses_are_resume_invalid_and_nothing_runs(tmp_path: Path,
                                                                              arguments: dict[str, Any]) -> None:
    adapter = adapter_for(BY_NAME["approval_rejected"], FileSessions(tmp_path))
    events, held = await pause(adapter)
    resume = resume_input(held, approve(events[-1]["outcome"]["interrupts"], arguments=arguments))
    done = await collected(adapter, resume)
    assert done[-1]["type"] == "RUN_ERROR" and done[-1]["code"] == "RESUME_INVALID", done[-1]
    assert "arguments" in done[-1]["message"]
    assert hitl_scenarios.EXECUTIONS == []
    for snapshot in (e for e in done if e["type"] == "MESSAGES_SNAPSHOT"):  # never shows what did not run
        assert tool_call_arguments(snapshot["messages"], "tool-book") == {"city": "Lisbon"}
    report = assert_valid_stream(done, input=wire(resume))
    assert tool_call_arguments(report["messages"], "tool-book") == {"city": "Lisbon"}
