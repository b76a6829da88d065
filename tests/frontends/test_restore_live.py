"""A CopilotKit page (v2 hooks and v1 API) reloaded while a run streams, after its runtime restarted: it shows
the conversation so far and the rest of the run as it streams, then ends, each answer once (issue 30, item 1).

``strands-agui serve --threads --resumable`` names a thread's live run in ``GET {path}/threads/{id}``
(``liveRun``); the restarted runtime (``runtime.mjs --restore``) holds nothing of the run, so
``strands-runner.mjs``'s ``StrandsThreadRunner`` attaches to it through ``GET {path}/runs/{runId}/events``. The
agent is ``tests/support/live_app.py``'s ``/gated``: it says ``SO_FAR``, waits in a tool until the test opens
the gate (a file), then says ``FINAL``. Without ``liveRun`` (before this), the reloaded page showed nothing of
the thread (its first run had kept nothing yet) and never the answer.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.console.conftest import TIMEOUT_MS
from tests.frontends.conftest import (
    HERE,
    RestartableRuntime,
    free_port,
    on,
    stop,
    wait_ping,
)
from tests.support import processes
from tests.support.live_app import FINAL, SO_FAR

pytestmark = pytest.mark.slow
APIS = ["v2", "v1"]


class Served:
    """``serve --app tests.support.live_app:app --threads --resumable``, its gate a file the test creates."""

    def __init__(self, tmp: Path) -> None:
        self.gate = tmp / "gate-open"
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("STRANDS_AGUI_")}
        env["LIVE_APP_GATE"] = str(self.gate)
        command = [sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--app", "tests.support.live_app:app",
                   "--port", str(port), "--sessions", str(tmp / "sessions"), "--threads", "--resumable",
                   "--log-level", "warning"]
        self.url = f"http://127.0.0.1:{port}"
        self.process = processes.start(command, env=env, text=True, cwd=HERE.parent.parent)
        try:
            wait_ping(self.process, self.url)
        except BaseException:
            stop(self.process)
            raise

    def shut(self) -> None:
        self.gate.unlink(missing_ok=True)

    def open(self) -> None:
        self.gate.touch()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("live"))
    try:
        yield server
    finally:
        server.open()
        stop(server.process)


@pytest.fixture(scope="module")
def runtime(served: Served, bundle: Path) -> Iterator[RestartableRuntime]:
    running = RestartableRuntime(served.url, "gated")
    running.start()
    try:
        yield running
    finally:
        running.stop()


def text_of(page: Any) -> str:
    return str(page.locator('[data-testid="page"]').inner_text())


def shows_times(page: Any, text: str, times: int) -> None:
    """Wait until the page's chat shows ``text`` exactly ``times`` times."""
    page.wait_for_function("([text, times]) => document.querySelector('[data-testid=page]').innerText"
                           ".split(text).length === times + 1", arg=[text, times])


def settles(pages: dict[str, tuple[Any, dict[str, int]]]) -> None:
    """Wait until each page's chat (by its client generation) shows each text exactly so many times, and still does
    a second later."""
    for _ in range(2):
        for api, (page, counts) in pages.items():
            with on(api):
                for text, times in counts.items():
                    shows_times(page, text, times)
        time.sleep(1)
    for api, (page, counts) in pages.items():
        whole = text_of(page)
        assert all(whole.count(text) == times for text, times in counts.items()), f"{api}: {whole}"


def live_run(served: Served, thread: str) -> Any:
    return httpx.get(f"{served.url}/gated/threads/{thread}", timeout=10).json().get("liveRun")


def ended(served: Served, thread: str) -> None:
    """Wait until the thread names no live run (its run kept the thread: its end is on its way)."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while live_run(served, thread) is not None:
        assert time.monotonic() < deadline, "the run did not end"
        time.sleep(0.1)


def test_reload_mid_run_after_the_runtime_restarted_attaches_to_the_live_run(
        pages: Any, runtime: RestartableRuntime, served: Served) -> None:
    """Both pages (v2, v1), each on its own thread, their runs held at the gate across one runtime restart."""
    served.shut()
    threads = {api: f"live-{uuid.uuid4()}" for api in APIS}
    question = {api: f"what is the forecast? ({api})" for api in APIS}
    for api, thread in threads.items():
        with on(api):
            first = pages(runtime.base, api, "gated", thread)
            first.send(question[api])
            expect(first.page.locator('[data-testid="page"]')).to_contain_text(SO_FAR)  # the run waits at the gate
            first.page.close()  # the reload begins: the page is gone...

    runtime.stop()  # ...and so is the runtime that ran it; the server's run goes on (resumable)
    restarted = runtime.start()
    shown = {}
    for api, thread in threads.items():
        with on(api):
            again = pages(restarted, api, "gated", thread).page
            shown[api] = again
            expect(again.locator('[data-testid="page"]')).to_contain_text(question[api])  # the conversation so far:
            expect(again.locator('[data-testid="page"]')).to_contain_text(SO_FAR)  # ...and what the run streamed
            expect(again.locator('[data-testid="page"]')).not_to_contain_text(FINAL)

    served.open()
    for api, thread in threads.items():
        with on(api):
            # the rest of the run, streamed into the reloaded page
            expect(shown[api].locator('[data-testid="page"]')).to_contain_text(FINAL)
            ended(served, thread)
    # CopilotKit connects up to three times as a page mounts (v1), each connect replaying the run from its start:
    # the page settles on each message once
    settles({api: (shown[api], {FINAL: 1, SO_FAR: 1, question[api]: 1}) for api in APIS})


def test_a_thread_with_an_earlier_run_shows_it_before_the_live_one(
        pages: Any, runtime: RestartableRuntime, served: Served) -> None:
    """The thread keeps an earlier answer; the reloaded page shows it, then the live run's question and text. Both
    pages (v2, v1), each on its own thread, their second runs held at the gate across one runtime restart."""
    served.shut()
    threads = {api: f"live-{uuid.uuid4()}" for api in APIS}
    first = {}
    for api, thread in threads.items():
        with on(api):
            first[api] = pages(runtime.base, api, "gated", thread)
            first[api].send("first question")
            expect(first[api].page.locator('[data-testid="page"]')).to_contain_text(SO_FAR)
    served.open()
    for api in APIS:
        with on(api):
            expect(first[api].page.locator('[data-testid="page"]')).to_contain_text(FINAL)
    served.shut()
    for api in APIS:
        with on(api):
            first[api].send("second question")  # once the chat takes it: the first run ended
            shows_times(first[api].page, SO_FAR, 2)  # the second run waits at the gate
            first[api].page.close()

    runtime.stop()
    restarted = runtime.start()
    shown = {}
    for api, thread in threads.items():
        with on(api):
            again = pages(restarted, api, "gated", thread).page
            shown[api] = again
            expect(again.locator('[data-testid="page"]')).to_contain_text("second question")
            expect(again.locator('[data-testid="page"]')).to_contain_text(FINAL)  # the earlier run's answer
            whole = text_of(again)
            assert whole.index("first question") < whole.index(FINAL) < whole.index("second question"), whole
    served.open()
    for api, thread in threads.items():
        with on(api):
            ended(served, thread)
    settles({api: (shown[api], {FINAL: 2, "second question": 1, "first question": 1}) for api in APIS})
