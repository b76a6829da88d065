"""Issue 29 in the console: thumbs under each answer send feedback the thread keeps (items 7), and a run cut by a
budget shows its note under the answer (item 5)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from playwright.sync_api import expect
from strands import Agent, tool

from strands_agui import FileSessions, StrandsAgent, StrandsAgentConfig
from strands_agui.server.console.page import mount_console
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.console.browser import open_example, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


def limited(_: Any) -> Agent:
    return Agent(model=ScriptedModel([[ToolUse("lookup", {"city": "Oslo"})], [Text("Never reached.")]]),
                 tools=[lookup], callback_handler=None)


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    app = FastAPI()
    sessions = FileSessions(Path(tmp_path_factory.mktemp("sessions")))
    chat = StrandsAgent(Agent(model=ScriptedModel(lambda _: [Text("Forty-two.")]), callback_handler=None),
                        name="chat", sessions=sessions, threads=True)
    add_strands_fastapi_endpoint(app, chat, "/chat")
    add_strands_fastapi_endpoint(app, StrandsAgent(limited, name="limited", config=StrandsAgentConfig(
        limits={"turns": 1})), "/limited")
    app.add_api_route("/examples", lambda: [
        {"path": "/chat", "name": "Chat", "description": "", "frontendTools": []},
        {"path": "/limited", "name": "Limited", "description": "", "frontendTools": []}], methods=["GET"])
    mount_console(app)
    with LiveServer(app) as served:
        yield served


def test_thumbs_under_an_answer_send_feedback_the_thread_keeps(page: Any, kept: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, kept, "/chat")
    send(page, "What is the answer?")
    wait_idle(page)
    answer = page.locator('[data-role="assistant"]')
    expect(answer).to_have_count(1)
    answer.locator('[data-testid="thumb-down"]').click()
    expect(answer.locator('[data-testid="thumb-down"]')).to_have_attribute("aria-pressed", "true")
    expect(answer.locator('[data-testid="thumb-up"]')).to_have_attribute("aria-pressed", "false")
    [run] = [r for r in requests if r.method == "POST" and r.url.endswith("/chat")]
    thread_id = run.post_data_json["threadId"]
    kept_feedback = httpx.get(f"{kept.url}/chat/threads/{thread_id}").json()["feedback"]
    message_id = answer.get_attribute("data-key").removeprefix("msg:")
    assert [(f["messageId"], f["rating"]) for f in kept_feedback] == [(message_id, "down")]


def test_a_budget_stop_shows_its_note_under_the_answer(page: Any, kept: LiveServer) -> None:
    open_example(page, kept, "/limited")
    send(page, "weather in Oslo")
    wait_idle(page)
    note = page.locator('[data-testid="stop-note"]')
    expect(note).to_have_count(1)
    expect(note).to_have_text("Stopped: the run reached its turn limit (1).")
    expect(page.locator('[data-testid="tool-call"]')).to_have_attribute("data-status", "done")
