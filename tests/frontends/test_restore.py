"""A CopilotKit page (v2 hooks and v1 API) shows the thread the server holds after a reload, in a second
browser and after its runtime restarts, a pending approval included (issue 30, item 1).

``strands-agui serve --threads`` keeps the threads; the runtime (``runtime.mjs --restore``) gives both
``CopilotRuntime`` generations ``strands-runner.mjs``'s ``StrandsThreadRunner``, whose ``connect`` (what the
page asks for when it mounts on a thread: v2 ``<CopilotChat threadId>``, v1 ``<CopilotKit threadId>``) reads
``GET {path}/threads/{id}``. The pages are ``src/v2.jsx`` and ``src/v1.jsx`` with ``?thread=<id>``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.conftest import TIMEOUT_MS
from tests.frontends.conftest import (
    HERE,
    LOAD_TIMEOUT_MS,
    Page,
    connected,
    free_port,
    listening_port,
    node,
    stop,
    wait_ping,
)

pytestmark = pytest.mark.slow
APIS = ["v2", "v1"]


@pytest.fixture(scope="module")
def served_threads(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``strands-agui serve --threads`` with the scripted model; threads and pauses in a temporary directory."""
    port, sessions = free_port(), tmp_path_factory.mktemp("threads")
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRANDS_AGUI_")}
    command = [sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--port", str(port), "--sessions",
               str(sessions), "--threads", "--log-level", "warning"]
    process = subprocess.Popen(command, env=env, text=True)
    try:
        wait_ping(process, f"http://127.0.0.1:{port}")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


class Runtime:
    """``runtime.mjs --restore`` in front of ``served_threads``, on the same port across restarts."""

    def __init__(self, served: str) -> None:
        from strands_agui.examples.demo import EXAMPLES

        self.served, self.routes = served, ",".join(module.agent.name for module in EXAMPLES)
        self.process: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self) -> str:
        env = {**os.environ, "COPILOTKIT_TELEMETRY_DISABLED": "true", "DO_NOT_TRACK": "1", "NODE_ENV": "production"}
        self.process = subprocess.Popen([node(), "runtime.mjs", self.served, self.routes, "--restore"], cwd=HERE,
                                        env=env, text=True, stdout=subprocess.PIPE)
        assert self.process.stdout is not None
        self.base = f"http://127.0.0.1:{listening_port(self.process, self.process.stdout)}"
        return self.base

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@pytest.fixture(scope="module")
def runtime(served_threads: str, bundle: Path) -> Iterator[Runtime]:
    running = Runtime(served_threads)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def pages(context: Any, browser: Any) -> Iterator[Any]:  # noqa: F811 - fixtures from the conftests
    """Opens watched v2 pages on a thread (in ``context``, or another one); each ends with no page errors."""
    opened: list[Page] = []
    contexts: list[Any] = []

    def open_page(base: str, api: str, agent: str, thread: str, other_context: bool = False) -> Page:
        owner = context
        if other_context:
            owner = browser.new_context(viewport={"width": 1280, "height": 900})
            contexts.append(owner)
        page = owner.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        watched = Page(page, base)
        with page.expect_response(connected(api), timeout=LOAD_TIMEOUT_MS):
            page.goto(f"{base}/?api={api}&agent={agent}&thread={thread}")
        page.wait_for_selector("textarea")
        opened.append(watched)
        return watched

    yield open_page
    for watched in opened:
        watched.page.close()
    for owner in contexts:
        owner.close()
    for watched in opened:
        assert not watched.errors, f"errors in the page: {watched.errors}"
        assert not watched.off_loopback, f"the page asked for more than loopback: {watched.off_loopback}"
        # `<CopilotKit runtimeUrl>` (v1) first probes the REST transport: GET .../info is 405 on the single route
        probe = ("405 GET ", "/api/copilotkit/info")
        assert [f for f in watched.failed if not f.startswith(probe[0]) or not f.endswith(probe[1])] == []


def state_of(page: Any) -> Any:
    return json.loads(page.locator('[data-testid="state"]').text_content())


def shows_pancakes(page: Any) -> None:
    """The shared_state thread after its run: the answer and the agent's recipe (not the page's own)."""
    expect(page.locator('[data-testid="page"]')).to_contain_text('updated "Pancakes"')
    expect(page.locator('[data-testid="page"]')).to_contain_text("make it a vegan recipe for pancakes")
    expect(page.locator('[data-testid="state"]')).to_contain_text('"title":"Pancakes"')
    assert state_of(page)["recipe"]["special_preferences"] == ["Vegan"]


@pytest.mark.parametrize("api", APIS)
def test_thread_comes_back_after_reload_in_a_second_browser_and_after_a_runtime_restart(pages: Any, runtime: Runtime,
                                                                                        api: str) -> None:
    thread = f"restore-{uuid.uuid4()}"
    first = pages(runtime.base, api, "shared_state", thread)
    first.send("make it a vegan recipe for pancakes")
    shows_pancakes(first.page)

    with first.page.expect_response(connected(api), timeout=LOAD_TIMEOUT_MS):
        first.page.reload()
    shows_pancakes(first.page)  # the reload

    shows_pancakes(pages(runtime.base, api, "shared_state", thread, other_context=True).page)  # a second browser

    runtime.stop()
    restarted = runtime.start()  # its in-memory runner holds nothing: the thread comes from the server
    shows_pancakes(pages(restarted, api, "shared_state", thread, other_context=True).page)


@pytest.mark.parametrize("api", APIS)
def test_a_new_thread_starts_empty(pages: Any, runtime: Runtime, api: str) -> None:
    page = pages(runtime.base, api, "shared_state", f"restore-{uuid.uuid4()}").page
    expect(page.locator('[data-testid="state"]')).to_contain_text('"title":"Make Your Recipe"')  # the page's own
    expect(page.locator('[data-testid="page"]')).not_to_contain_text("Pancakes")


@pytest.mark.parametrize("api", APIS)
def test_pending_approval_card_comes_back_after_a_runtime_restart_and_resumes(pages: Any, runtime: Runtime,
                                                                             api: str) -> None:
    thread = f"restore-{uuid.uuid4()}"
    first = pages(runtime.base, api, "human_in_the_loop", thread)
    first.send("book a flight to Oslo")
    card = first.page.locator('[data-testid="approval"]')
    expect(card.locator('[data-testid="approval-message"]')).to_contain_text("Oslo")

    runtime.stop()
    restarted = runtime.start()
    again = pages(restarted, api, "human_in_the_loop", thread, other_context=True).page
    card = again.locator('[data-testid="approval"]')
    expect(card.locator('[data-testid="approval-message"]')).to_contain_text("Oslo")
    card.locator('[data-testid="approve"]').click()
    expect(again.locator('[data-testid="page"]')).to_contain_text("Your flight to Oslo is booked (reference FL-")
    expect(card).to_have_count(0)


@pytest.mark.parametrize("api", APIS)
def test_reload_while_a_run_streams_attaches_to_it(pages: Any, runtime: Runtime, api: str) -> None:
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
