"""A reconnect gets the run as its own client generation gets it (``server/transport/versions.py``), not as the client
that started the run did: the store keeps the run's 1.0 events and each reader's ``protocolVersion`` query
parameter (none: a 0.0.x client) picks the rewrite. A frontend-tool run is the case that matters: its 1.0
RUN_FINISHED (``pendingToolCallIds``) is what ``@ag-ui/client`` 0.0.59 rejects."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import httpx
from strands import Agent

from strands_agui import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import (
    CLIENT_DIR,
    CLIENTS,
    CURRENT,
    LEGACY,
    _node,
    assert_valid_sse,
    check_ag_ui_validate_sse,
    check_official_client_sse,
)
from tests.support.live import LiveServer
from tests.support.resumable import SSE, cut, frames, reconnect, run_body

TOOL = {"name": "change_background", "description": "Change the page's background colour.",
        "parameters": {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}}


def frontend_tool_app() -> Any:
    model = ScriptedModel([[Text("Changing the background."), ToolUse("change_background", {"color": "teal"},
                                                                       tool_use_id="bg-1")]])
    return create_strands_app(StrandsAgent(Agent(model=model, callback_handler=None), name="fe"), resumable=True)


def body(run_id: str, version: str | None) -> dict[str, Any]:
    declared = {**run_body(run_id, "make it teal"), "tools": [TOOL]}
    if version is None:
        del declared["protocolVersion"]  # a 0.0.x client declares nothing
    return declared


def connect_agent(url: str, run_id: str, client: str) -> list[dict[str, Any]]:
    """The messages ``connectAgent`` of ``client``'s generation rebuilds from the run's events."""
    done = subprocess.run([_node(), str(CLIENT_DIR / "connect_agent.mjs"), url, run_id], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "AGUI_CLIENT_DIR": str(CLIENTS[client])})
    assert done.returncode == 0, done.stdout + done.stderr
    messages: list[dict[str, Any]] = json.loads(done.stdout)["messages"]
    return messages


def finish(raw: bytes) -> dict[str, Any]:
    end = frames(raw)[-1][1]
    assert end["type"] == "RUN_FINISHED", end
    return end


def test_a_run_a_1_0_client_started_reaches_a_0_0_59_client_as_0_0_59_gets_it() -> None:
    with LiveServer(frontend_tool_app()) as server:
        held, last = cut(server.url + "/", body("v-1", "1.0"), after=2)
        rest = reconnect(server.url, "v-1", last, protocol_version=None)  # a 0.0.59 client picks it up
        whole = reconnect(server.url, "v-1", None, protocol_version=None)
        again = reconnect(server.url, "v-1", None)  # a 1.0 reader still gets the 1.0 run
        messages = connect_agent(server.url, "v-1", LEGACY)
    assert frames(held)[0][1]["protocolVersion"] == "1.0"  # the POST's own client got 1.0
    assert frames(rest.content) == frames(whole.content)[2:]  # the same ids, the same events
    legacy_end = finish(whole.content)
    assert legacy_end["outcome"] == {"type": "success"} and legacy_end["metadata"]["pendingToolCallIds"] == ["bg-1"]
    assert "protocolVersion" not in frames(whole.content)[0][1]
    check_ag_ui_validate_sse(whole.content)
    report = check_official_client_sse(whole.content, client=LEGACY, fail_on_run_error=True)
    assert report["messages"][0]["content"] == "Changing the background."
    assert finish(again.content)["outcome"] == {"type": "success", "pendingToolCallIds": ["bg-1"]}
    calls = [call for m in messages for call in m.get("toolCalls", [])]
    assert [c["function"]["name"] for c in calls] == ["change_background"]  # what the 0.0.59 user holds


def test_a_run_a_0_0_59_client_started_reaches_a_1_0_client_as_1_0_gets_it() -> None:
    with LiveServer(frontend_tool_app()) as server:
        live = httpx.post(server.url + "/", json=body("v-2", None), headers=SSE, timeout=30)
        rest = reconnect(server.url, "v-2", "v-2:2")  # protocolVersion=1.0
        whole = reconnect(server.url, "v-2", None)
        messages = connect_agent(server.url, "v-2", CURRENT)
    assert "protocolVersion" not in frames(live.content)[0][1]  # the POST's own client got 0.0.x
    assert finish(live.content)["outcome"] == {"type": "success"}
    assert frames(whole.content)[0][1]["protocolVersion"] == "1.0"
    assert frames(rest.content) == frames(whole.content)[2:]
    assert finish(whole.content)["outcome"] == {"type": "success", "pendingToolCallIds": ["bg-1"]}
    report = assert_valid_sse(whole.content, fail_on_run_error=True)
    assert report["messages"][0]["content"] == "Changing the background."
    calls = [call for m in messages for call in m.get("toolCalls", [])]
    assert [c["function"]["name"] for c in calls] == ["change_background"]


def test_a_reconnect_declaring_an_overlong_version_is_refused() -> None:
    with LiveServer(frontend_tool_app()) as server:
        assert httpx.post(server.url + "/", json=body("v-3", "1.0"), headers=SSE, timeout=30).status_code == 200
        refused = reconnect(server.url, "v-3", None, protocol_version="1." + "0" * 100)
    assert refused.status_code == 422 and "protocolVersion" in refused.text
