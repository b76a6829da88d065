"""The console restores a thread as a CopilotKit page does (issue 30, item 1): reloaded while a run is on the
thread, it shows the stored thread and the run's question, attaches to the run the thread API names
(``liveRun``, ``GET {path}/runs/{runId}/events`` from its start) and shows the rest as it streams, each message
once; reloaded with an approval pending, it shows the approval card again, and approving it resumes the run.
The server keeps threads (files) and its runs are resumable (memory)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect
from strands import Agent

from strands_agui import FileSessions, StrandsAgent
from strands_agui.examples.human_in_the_loop import build_agent
from strands_agui.server.console.page import mount_console
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.console.browser import assistant_texts, open_example, send, wait_idle
from tests.support.live import LiveServer
from tests.support.resumable import Gate

pytestmark = pytest.mark.slow  # a browser (Chromium) per module

SO_FAR = "Waiting at the gate."
FINAL = "Through the gate at last."


@pytest.fixture(scope="module")
def gate() -> Gate:
    return Gate()


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory, gate: Gate) -> Iterator[LiveServer]:
    sessions = FileSessions(Path(tmp_path_factory.mktemp("sessions")))

    def turn(messages: list[dict[str, Any]]) -> list[Any]:
        if any("toolResult" in block for block in messages[-1]["content"]):
            return [Text(FINAL)]
        return [Text(SO_FAR), ToolUse("wait_for_gate", {})]

    gated = StrandsAgent(Agent(model=ScriptedModel(turn), tools=[gate.tool()], callback_handler=None), name="gated",
                         sessions=sessions, threads=True)
    approvals = copy.copy(build_agent())
    approvals.sessions, approvals.threads = sessions, True
    app = FastAPI()
    add_strands_fastapi_endpoint(app, gated, "/gated", resumable=True)
    add_strands_fastapi_endpoint(app, approvals, "/human_in_the_loop", resumable=True)
    mount_console(app)
    with LiveServer(app) as served:
        yield served


def reload(page: Any, path: str) -> None:
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    if page.input_value("#example") != path:  # the page opens on its first example, attached if a run is on it
        page.select_option("#example", path)


def test_a_reload_mid_run_shows_the_thread_and_attaches_to_the_live_run(page: Any, kept: LiveServer,
                                                                        gate: Gate) -> None:
    gate.opened.clear()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(f"{request.method} {request.url}"))
    open_example(page, kept, "/gated")
    send(page, "open the gate")
    expect(page.locator('[data-role="assistant"] [data-testid="message-text"]')).to_contain_text(SO_FAR)
    assert gate.entered.wait(20)

    reload(page, "/gated")
    expect(page.locator('[data-role="user"]')).to_have_count(1)
    expect(page.locator('[data-role="user"]')).to_contain_text("open the gate")
    expect(page.locator('[data-role="assistant"] [data-testid="message-text"]').first).to_contain_text(SO_FAR)
    expect(page.locator("body")).to_have_attribute("data-running", "true")  # attached: the run is still on
    assert any("/gated/runs/" in r and r.endswith("/events?protocolVersion=1.0") for r in requests), requests

    gate.opened.set()
    wait_idle(page)
    texts = assistant_texts(page)
    assert " ".join(texts).count(FINAL) == 1 and " ".join(texts).count(SO_FAR) == 1, texts
    expect(page.locator('[data-role="user"]')).to_have_count(1)
    expect(page.locator('[data-testid="error"]')).to_have_count(0)

    reload(page, "/gated")  # the run ended: the kept thread, nothing to attach to
    expect(page.locator('[data-role="user"]')).to_have_count(1)
    expect(page.locator('[data-role="assistant"] [data-testid="message-text"]').last).to_contain_text(FINAL)
    expect(page.locator("body")).to_have_attribute("data-running", "false")

    gate.opened.clear()  # a second run on the kept thread, reloaded mid-run: the kept run first, then this one
    gate.entered.clear()
    send(page, "and again")
    assert gate.entered.wait(20)
    reload(page, "/gated")
    expect(page.locator('[data-role="user"]')).to_have_count(2)
    expect(page.locator("body")).to_have_attribute("data-running", "true")
    gate.opened.set()
    wait_idle(page)
    joined = " ".join(assistant_texts(page))
    assert joined.count(FINAL) == 2 and joined.count(SO_FAR) == 2, assistant_texts(page)
    users = page.locator('[data-role="user"] [data-testid="message-text"]').all_inner_texts()
    assert [t.strip() for t in users] == ["open the gate", "and again"]


def test_stop_on_a_reattached_run_cancels_it_on_the_server(page: Any, kept: LiveServer, gate: Gate) -> None:
    """Stop on a run the page attached to after a reload cancels the run (``POST {path}/runs/{runId}/cancel``),
    not only the page's reading of it: once its tool returns (a cancel by id is Strands' own, cooperative: a
    running tool is not interrupted) the run ends cancelled, and its answer never reaches the thread (without
    the cancel the detached run would go on and keep it)."""
    gate.opened.clear()
    gate.entered.clear()
    open_example(page, kept, "/gated")
    send(page, "open the gate, then stop")
    assert gate.entered.wait(20)
    reload(page, "/gated")
    expect(page.locator("body")).to_have_attribute("data-running", "true")  # attached
    cancels: list[str] = []
    page.on("request", lambda request: cancels.append(request.url) if request.url.endswith("/cancel") else None)
    page.click("#stop")
    wait_idle(page)
    assert len(cancels) == 1 and "/gated/runs/" in cancels[0], cancels
    gate.opened.set()  # the tool returns; Strands stops before the model's next turn
    for _ in range(40):  # the run ends on the server: a reload finds nothing to attach to
        page.wait_for_timeout(250)
        reload(page, "/gated")
        if page.get_attribute("body", "data-running") == "false":
            break
    expect(page.locator("body")).to_have_attribute("data-running", "false")
    assert FINAL not in " ".join(assistant_texts(page)), assistant_texts(page)
    expect(page.locator('[data-role="user"]')).to_have_count(1)


def test_a_reload_with_an_approval_pending_shows_its_card_and_approving_resumes(page: Any,
                                                                                 kept: LiveServer) -> None:
    open_example(page, kept, "/human_in_the_loop")
    send(page, "book me a flight to Oslo")
    card = page.locator('[data-testid="interrupt-card"]')
    expect(card.locator('[data-testid="interrupt-message"]')).to_contain_text("Oslo")
    wait_idle(page)

    reload(page, "/human_in_the_loop")
    card = page.locator('[data-testid="interrupt-card"]')
    expect(card).to_have_count(1)
    expect(card.locator('[data-testid="interrupt-message"]')).to_contain_text("Oslo")
    # the machine and the inspector agree with the header ("waiting for you"), and say the thread was restored
    # (they said "idle", "No move yet: send a message", and nothing)
    expect(page.locator("#status")).to_have_text("waiting for you")
    expect(page.locator('[data-testid="focus-current"]')).to_have_text("paused")
    expect(page.locator('[data-testid="focus-words"]')).to_contain_text("restored after a reload")
    expect(page.locator('[data-testid="inspector-empty"]')).to_contain_text("restored from the server after a reload")
    answer = page.locator('[data-role="assistant"]').filter(has=page.locator('[data-tool-name="book_flight"]'))
    expect(answer.locator('[data-testid="feedback"]')).to_have_count(1)
    last = answer.evaluate("n => n.lastElementChild.dataset.testid")
    assert last == "feedback", last  # the thumbs under the tool card (a reload drew them above it)
    card.locator('[data-testid="approve"]').click()
    wait_idle(page)
    assert "Oslo is booked" in assistant_texts(page)[-1]
    expect(page.locator('[data-testid="error"]')).to_have_count(0)


def test_a_new_thread_asks_the_server_for_nothing(browser: Any, kept: LiveServer) -> None:
    """A thread no run was sent on is not looked up (the server answered 404, which the browser logs); once a run
    was sent, a reload restores it."""
    context = browser.new_context()
    page = context.new_page()
    try:
        lookups: list[str] = []
        page.on("response", lambda r: lookups.append(f"{r.status} {r.url}") if "/threads/" in r.url else None)
        open_example(page, kept, "/human_in_the_loop")
        page.select_option("#example", "/gated")
        page.click("#new-thread")
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        page.select_option("#example", "/human_in_the_loop")
        expect(page.locator("#status")).to_have_text("idle")
        assert lookups == [], lookups
    finally:
        context.close()
