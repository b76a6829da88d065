"""``make run`` keeps the conversation (issue 39): served as the Makefile's ``run`` target serves (its flags read
with ``make -n run``), a page reloaded shows the thread's messages and its pending approval again, and so does a
page reloaded after the server restarted; the startup line says where the threads are kept. Before, ``make run``
served without ``--threads``: a reload kept the thread id and lost every message and the approval, silently."""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import send, wait_idle
from tests.support.paths import REPO
from tests.support.workers import free_port, serve

pytestmark = pytest.mark.slow  # two served processes and a browser

ROUTE = "/human_in_the_loop"


def run_flags() -> list[str]:
    """What ``make run`` passes to ``strands-agui serve`` (besides ``ARGS``)."""
    shown = subprocess.run(["make", "-n", "--no-print-directory", "run", "ARGS="], cwd=REPO, capture_output=True,
                           text=True, timeout=60)
    line = next(line for line in shown.stdout.splitlines() if "strands-agui serve" in line)
    return shlex.split(line.partition("strands-agui serve")[2])


@contextmanager
def make_run(port: int, sessions: Path, log: Path) -> Iterator[str]:
    """The examples served as ``make run`` serves them, on ``port``, its stderr (the startup line) in ``log``."""
    with log.open("w") as err, serve(sessions, 1, None, *run_flags(), port=port, stderr=err) as url:
        yield url


def reload(page: Any) -> None:
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    if page.input_value("#example") != ROUTE:
        page.select_option("#example", ROUTE)


def shows_the_thread(page: Any) -> None:
    expect(page.locator('[data-role="user"]')).to_have_count(1)
    expect(page.locator('[data-role="user"]')).to_contain_text("Oslo")
    expect(page.locator('[data-testid="interrupt-card"] [data-testid="interrupt-message"]')).to_contain_text("Oslo")


def test_make_run_restores_the_thread_after_a_reload_and_a_restart(page: Any, tmp_path: Path) -> None:
    port, sessions, log = free_port(), tmp_path / "sessions", tmp_path / "serve.err"
    with make_run(port, sessions, log) as url:
        deadline = time.monotonic() + 30
        while "kept in" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert f"threads and paused runs are kept in {sessions}" in log.read_text(), log.read_text()
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready=true]")
        page.select_option("#example", ROUTE)
        send(page, "book me a flight to Oslo")
        expect(page.locator('[data-testid="interrupt-card"]')).to_have_count(1)
        wait_idle(page)
        reload(page)
        shows_the_thread(page)
        page.select_option("#example", "/multi_agent")  # a Swarm's messages come back in their subagents' blocks
        send(page, "What do you know about solar power?")
        wait_idle(page)
        expect(page.locator('[data-testid="subagent"]')).to_have_count(2)
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        page.select_option("#example", "/multi_agent")
        blocks = page.locator('[data-testid="subagent"]')
        expect(blocks).to_have_count(2)  # they came back as loose messages
        expect(blocks.first.locator('[data-tool-name="search_notes"]')).to_have_count(1)
        expect(blocks.last.locator('[data-role="assistant"]')).to_contain_text("solar power")
    with make_run(port, sessions, log):  # the same address: the page's remembered thread id is the origin's
        reload(page)
        shows_the_thread(page)
        page.locator('[data-testid="interrupt-card"] [data-testid="approve"]').click()
        wait_idle(page)
        expect(page.locator('[data-role="assistant"] [data-testid="message-text"]').last).to_contain_text(
            "Oslo is booked")
