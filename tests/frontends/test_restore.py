"""A CopilotKit page (v2 hooks and v1 API) shows the thread the server holds after a reload, in a second
browser and after its runtime restarts, a pending approval included (issue 30, item 1).

``strands-agui serve --threads`` keeps the threads; the runtime (``runtime.mjs --restore``) gives both
``CopilotRuntime`` generations ``strands-runner.mjs``'s ``StrandsThreadRunner``, whose ``connect`` (what the
page asks for when it mounts on a thread: v2 ``<CopilotChat threadId>``, v1 ``<CopilotKit threadId>``) reads
``GET {path}/threads/{id}``. The pages are ``src/v2.jsx`` and ``src/v1.jsx`` with ``?thread=<id>``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontends.conftest import (
    LOAD_TIMEOUT_MS,
    RestartableRuntime,
    connected,
    on,
    serve_cli,
)

pytestmark = pytest.mark.slow
APIS = ["v2", "v1"]


@pytest.fixture(scope="module")
def served_threads(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``strands-agui serve --threads`` with the scripted model; threads and pauses in a temporary directory."""
    with serve_cli(tmp_path_factory.mktemp("threads"), "--threads") as url:
        yield url


@pytest.fixture(scope="module")
def runtime(served_threads: str, bundle: Path) -> Iterator[RestartableRuntime]:
    from strands_agui.examples.demo import EXAMPLES

    running = RestartableRuntime(served_threads, ",".join(module.agent.name for module in EXAMPLES))
    running.start()
    try:
        yield running
    finally:
        running.stop()


def state_of(page: Any) -> Any:
    return json.loads(page.locator('[data-testid="state"]').text_content())


def shows_pancakes(page: Any) -> None:
    """The shared_state thread after its run: the answer and the agent's recipe (not the page's own)."""
    expect(page.locator('[data-testid="page"]')).to_contain_text('updated "Pancakes"')
    expect(page.locator('[data-testid="page"]')).to_contain_text("make it a vegan recipe for pancakes")
    expect(page.locator('[data-testid="state"]')).to_contain_text('"title":"Pancakes"')
    assert state_of(page)["recipe"]["special_preferences"] == ["Vegan"]


def test_thread_comes_back_after_reload_in_a_second_browser_and_after_a_runtime_restart(pages: Any,
        runtime: RestartableRuntime) -> None:
    """Both pages (v2, v1), each on its own thread, before one runtime restart."""
    threads = {api: f"restore-{uuid.uuid4()}" for api in APIS}
    for api, thread in threads.items():
        with on(api):
            first = pages(runtime.base, api, "shared_state", thread)
            first.send("make it a vegan recipe for pancakes")
            shows_pancakes(first.page)

            with first.page.expect_response(connected(api), timeout=LOAD_TIMEOUT_MS):
                first.page.reload()
            shows_pancakes(first.page)  # the reload

            shows_pancakes(pages(runtime.base, api, "shared_state", thread, other_context=True).page)  # a 2nd browser

    pages.close_all()  # the pages go first: one still open on a stopped runtime fails its fetches
    runtime.stop()
    restarted = runtime.start()  # its in-memory runner holds nothing: each thread comes from the server
    for api, thread in threads.items():
        with on(api):
            shows_pancakes(pages(restarted, api, "shared_state", thread, other_context=True).page)


@pytest.mark.parametrize("api", APIS)
def test_a_new_thread_starts_empty(pages: Any, runtime: RestartableRuntime, api: str) -> None:
    page = pages(runtime.base, api, "shared_state", f"restore-{uuid.uuid4()}").page
    expect(page.locator('[data-testid="state"]')).to_contain_text('"title":"Make Your Recipe"')  # the page's own
    expect(page.locator('[data-testid="page"]')).not_to_contain_text("Pancakes")


def test_pending_approval_card_comes_back_after_a_runtime_restart_and_resumes(pages: Any,
        runtime: RestartableRuntime) -> None:
    """Both pages (v2, v1), each on its own thread, paused before one runtime restart."""
    threads = {api: f"restore-{uuid.uuid4()}" for api in APIS}
    for api, thread in threads.items():
        with on(api):
            first = pages(runtime.base, api, "human_in_the_loop", thread)
            first.send("book a flight to Oslo")
            card = first.page.locator('[data-testid="approval"]')
            expect(card.locator('[data-testid="approval-message"]')).to_contain_text("Oslo")

    pages.close_all()
    runtime.stop()
    restarted = runtime.start()
    for api, thread in threads.items():
        with on(api):
            again = pages(restarted, api, "human_in_the_loop", thread, other_context=True).page
            card = again.locator('[data-testid="approval"]')
            expect(card.locator('[data-testid="approval-message"]')).to_contain_text("Oslo")
            card.locator('[data-testid="approve"]').click()
            booked = "Your flight to Oslo is booked (reference FL-"
            expect(again.locator('[data-testid="page"]')).to_contain_text(booked)
            expect(card).to_have_count(0)


@pytest.mark.parametrize("api", APIS)
def test_reload_while_a_run_streams_attaches_to_it(pages: Any, runtime: RestartableRuntime, api: str) -> None:
    """The plan's steps complete 0.4 s apart: the page reloads after the first and ends with all three."""
    thread = f"restore-{uuid.uuid4()}"
    first = pages(runtime.base, api, "agentic_generative_ui", thread)
    first.send("plan a trip: book flights, reserve a hotel, then pack")
    expect(first.page.locator('[data-testid="plan-step"]')).to_have_count(3)  # reloaded ~1 s before the run ends

    with first.page.expect_response(connected(api), timeout=LOAD_TIMEOUT_MS):
        first.page.reload()
    expect(first.page.locator('[data-testid="plan-step"][data-status="completed"]')).to_have_count(3)
    assert [s["status"] for s in state_of(first.page)["steps"]] == ["completed"] * 3
    expect(first.page.locator('[data-testid="page"]')).to_contain_text("plan a trip")
