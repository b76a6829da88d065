"""Stop ends the server's run, in every serving mode (issue 39): plain SSE (closing the stream cancels it), threads,
resumable, and threads + resumable (what docs/console.md prescribes for a reload mid-run: before, the page only
stopped reading, and the detached run went on to its answer). One ``strands-agui serve`` process of
``tests/console/stop_app.py`` serves all four; the run waits in a tool until the test opens the gate after Stop, and
the server says how it ended: its ``strands_agui_runs_total`` by outcome, the stored thread, the run's log."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.console.browser import run_inputs, send, wait_idle
from tests.console.stop_app import FINAL, MODES, SO_FAR
from tests.support.workers import serve

pytestmark = pytest.mark.slow  # a served process and a browser


class Served:
    def __init__(self, url: str, gate: Path) -> None:
        self.url, self.gate = url, gate

    def outcomes(self, agent: str) -> dict[str, float]:
        """The agent's ended runs by outcome, as the server counts them."""
        text = httpx.get(self.url + "/metrics", timeout=5).text
        pattern = rf'^strands_agui_runs_total{{(?=[^}}]*agent="{agent}")(?=[^}}]*outcome="(\w+)")[^}}]*}} (\S+)$'
        return {m.group(1): float(m.group(2)) for m in re.finditer(pattern, text, re.M)}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("stop")
    gate = tmp / "gate-open"
    with serve(tmp / "sessions", 1, "tests.console.stop_app:app", env={"LIVE_APP_GATE": str(gate)}) as url:
        try:
            yield Served(url, gate)
        finally:
            gate.touch()  # no run left waiting


def ended(served: Served, mode: str) -> None:
    deadline = time.monotonic() + 30
    while not served.outcomes(mode):
        assert time.monotonic() < deadline, f"the server never ended the /{mode} run"
        time.sleep(0.1)


@pytest.mark.parametrize("mode", list(MODES))
def test_stop_ends_the_servers_run(page: Any, served: Served, mode: str) -> None:
    served.gate.unlink(missing_ok=True)
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    page.goto(served.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#example", f"/{mode}")
    send(page, f"wait at the gate ({mode})")
    expect(page.locator('[data-testid="tool-call"][data-tool-name="wait_for_gate"]')).to_have_count(1)
    expect(page.locator('[data-role="assistant"] [data-testid="message-text"]').first).to_contain_text(SO_FAR)
    page.click("#stop")
    wait_idle(page)
    served.gate.touch()  # a cancel is Strands' own: the tool returns, then the run stops before the model's next turn
    ended(served, mode)
    assert served.outcomes(mode) in ({"cancelled": 1.0}, {"disconnected": 1.0}), served.outcomes(mode)
    (sent,) = run_inputs(requests, f"/{mode}")
    threads, resumable = MODES[mode]
    if resumable:  # the run's own log, from the server: it ended cancelled
        events = httpx.get(f"{served.url}/{mode}/runs/{sent['runId']}/events?protocolVersion=1.0", timeout=10)
        data = [line[5:] for line in events.text.splitlines() if line.startswith("data:")]
        last = json.loads(data[-1])
        assert last["type"] == "RUN_FINISHED" and last["outcome"]["type"] == "cancelled", last
    if threads:  # the stored thread holds no answer the stopped run would have given (or nothing: 404)
        kept = httpx.get(f"{served.url}/{mode}/threads/{sent['threadId']}", timeout=10)
        assert kept.status_code == 404 or FINAL not in json.dumps(kept.json()["messages"]), kept.text


@pytest.fixture(scope="module")
def examples_as_make_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("plan") / "sessions", 1, None, "--threads", "--resumable") as url:
        yield url


def test_stop_ends_a_plan_that_was_still_ticking(page: Any, examples_as_make_runs: str) -> None:
    """The plan example's run has halted (``stop_streaming_after_result``) when its steps tick: what ticks them is
    its result handler. Stop cancels the run by id, and the handler stops there: before, it went on to the last
    step, and a reload showed the plan done (0/3 -> 3/3) though the page said the run was stopped."""
    url = examples_as_make_runs
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#example", "/agentic_generative_ui")
    send(page, "plan a launch: write the post, record a demo, then ship")
    expect(page.locator('[data-testid="plan-progress"]')).to_contain_text("1 / 3 done")
    page.click("#stop")
    wait_idle(page)
    (sent,) = run_inputs(requests, "/agentic_generative_ui")
    deadline = time.monotonic() + 30
    while True:  # the server's run ends (no live run on the thread), then its thread holds what it sent
        kept = httpx.get(f"{url}/agentic_generative_ui/threads/{sent['threadId']}", timeout=10)
        if kept.status_code == 200 and not kept.json().get("liveRun"):
            break
        assert time.monotonic() < deadline, kept.text
        time.sleep(0.1)
    steps = kept.json()["state"]["steps"]
    assert [s["status"] for s in steps].count("completed") < len(steps), steps
    page.reload()  # the restored plan: what its stopped run left open is not "in progress"
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#example", "/agentic_generative_ui")
    expect(page.locator('[data-testid="plan-progress"]')).to_contain_text("its run ended")
    expect(page.locator('[data-testid="plan-step"][data-status="in_progress"]')).to_have_count(0)
