"""The live machine beside the chat: the diagram highlights the state as the trace arrives, the inspector lists
each Strands event -> transitions -> AG-UI events, and its downloads are a valid trace and a log that replays
(``tooling.replay``) to the same transitions and the same AG-UI events."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from strands_agui.examples import backend_tool_rendering
from strands_agui.runtime.recordings import read_log
from strands_agui.tooling.replay import replay_to_list
from tests.console.browser import open_example, send, wait_idle
from tests.support.live import LiveServer
from tests.support.trace import assert_legal

pytestmark = pytest.mark.slow  # a browser (Chromium) per module


def download(page: Any, button: str, tmp_path: Path) -> Path:
    with page.expect_download() as info:
        page.click(f'[data-testid="{button}"]')
    target = tmp_path / info.value.suggested_filename
    info.value.save_as(target)
    return target


def test_machine_highlights_states_and_downloads_replay(page: Any, examples: LiveServer, tmp_path: Path) -> None:
    open_example(page, examples, "/backend_tool_rendering")
    page.click('[data-testid="machine-full-toggle"]')
    expect(page.locator('[data-testid="machine-diagram"] svg')).to_be_visible()
    page.evaluate("""() => {  // every state the panel shows, in order
        window.states = [];
        const panel = document.getElementById('machine-panel');
        new MutationObserver(() => {
            if (window.states.at(-1) !== panel.dataset.state) window.states.push(panel.dataset.state);
        }).observe(panel, {attributes: true, attributeFilter: ['data-state']});
    }""")
    send(page, "weather in Paris")
    wait_idle(page)
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("finished")
    expect(page.locator("#machine-diagram g.state.current")).to_have_attribute("id", "state-finished")
    expect(page.locator("#machine-diagram g.move.last")).to_have_attribute("id", "move-finish-ready-finished")
    states = page.evaluate("window.states")  # what was on screen, frame by frame
    # `ready` recurs between parts, and two moves applied in one frame show only the second (idle -> ready ->
    # streaming_text seen as idle -> streaming_text): the order is checked on the states each part first enters
    expected = ["streaming_text", "in_tool_call", "awaiting_result", "finished"]
    seen = [s for s in expected if s in states]
    assert len(seen) >= 3 and [states.index(s) for s in seen] == sorted(states.index(s) for s in seen), states
    visited = page.eval_on_selector_all("#machine-diagram g.state.visited", "nodes => nodes.map(n => n.id)")
    assert {f"state-{s}" for s in expected} <= set(visited), visited
    page.click('[data-testid="machine-close"]')  # the whole machine's sheet lies over the inspector

    rows = page.locator('[data-testid="inspector-step"]')
    tool_row = rows.filter(has_text="open_tool_call")
    expect(tool_row).to_have_count(1)
    expect(tool_row.locator('[data-testid="step-event"]')).to_contain_text("toolUse get_weather")
    expect(tool_row.locator('[data-testid="step-agui"]')).to_contain_text("TOOL_CALL_START")

    trace = json.loads(download(page, "download-trace", tmp_path).read_text())
    moves = [(t["cause"], t["trigger"], t["state"]) for s in trace["steps"] for t in s["transitions"]]
    assert_legal(moves)
    assert trace["input"]["messages"][-1]["content"] == "weather in Paris"
    log = read_log(download(page, "download-log", tmp_path))
    assert log.input_data is not None and log.input_data.thread_id == trace["threadId"]
    replay_trace: list[tuple[str, str, str]] = []
    with ThreadPoolExecutor(1) as pool:  # replay_to_list runs its own loop; Playwright's is running here
        replayed = pool.submit(replay_to_list, log, config=backend_tool_rendering.agent.config,
                               trace=replay_trace).result()
    assert replay_trace == moves
    assert [e.type.value for e in replayed] == [e["type"] for s in trace["steps"] for e in s["agui"]]


def test_runs_of_a_thread_are_listed_and_a_server_without_inspection_says_so(page: Any,
                                                                             scripted: LiveServer) -> None:
    open_example(page, scripted, "/interrupting")  # a raw route: no trace
    send(page, "book")
    wait_idle(page)
    expect(page.locator('[data-testid="inspector-empty"]')).to_contain_text("sent no trace")
    expect(page.locator('[data-testid="download-trace"]')).to_be_disabled()
    page.locator('[data-testid="approve"]').click()
    wait_idle(page)
    expect(page.locator('[data-testid="inspector-run"] option')).to_have_count(2)
    expect(page.locator('[data-testid="inspector-run"] option').last).to_contain_text("resume")
