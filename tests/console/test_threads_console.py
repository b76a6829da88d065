"""The console on a server that keeps threads: a reload restores the conversation through the thread API, and
"Regenerate" runs the last user turn again as a branch (``parentRunId``) that the stored thread follows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from playwright.sync_api import expect
from strands import Agent

from strands_agui import FileSessions, StrandsAgent
from strands_agui.server.console.page import mount_console
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.console.browser import assistant_texts, open_example, run_inputs, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module

ANSWERS = iter(range(1, 1000))


def numbered(messages: Any) -> list[Text]:
    """Says which answer this is and the last thing the user said, so a regenerated answer differs."""
    said = [b["text"] for m in messages if m["role"] == "user" for b in m["content"] if "text" in b]
    return [Text(f"answer {next(ANSWERS)} to {said[-1]}")]


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    app = FastAPI()
    agent = StrandsAgent(Agent(model=ScriptedModel(numbered), callback_handler=None), name="chat",
                         sessions=FileSessions(Path(tmp_path_factory.mktemp("sessions"))), threads=True)
    add_strands_fastapi_endpoint(app, agent, "/chat")
    app.add_api_route("/examples", lambda: [{"path": "/chat", "name": "Chat", "description": "",
                                             "frontendTools": []}], methods=["GET"])
    mount_console(app)
    with LiveServer(app) as served:
        yield served


def test_a_reload_restores_the_thread_and_regenerate_branches_it(page: Any, kept: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, kept, "/chat")
    send(page, "hello")
    wait_idle(page)
    expect(page.locator('[data-role="assistant"]')).to_have_count(1)
    first = assistant_texts(page)

    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#example", "/chat")
    expect(page.locator('[data-role="user"]')).to_have_count(1)
    assert assistant_texts(page) == first, "the reload restored the conversation"

    page.click("#regenerate")
    wait_idle(page)
    expect(page.locator('[data-role="assistant"]')).to_have_count(1)
    again = assistant_texts(page)
    assert again != first and again[0].endswith("to hello")
    regenerate = run_inputs(requests, "/chat")[-1]
    assert regenerate["parentRunId"] and [m["role"] for m in regenerate["messages"]] == ["user"]
    thread_id = regenerate["threadId"]
    stored = httpx.get(f"{kept.url}/chat/threads/{thread_id}").json()["messages"]
    assert [m.get("content") for m in stored] == ["hello", again[0]], "the stored thread follows the branch"
