"""The machine view a person reads (issue 39): it settles on Stop (no "tools are running", no next moves), lists each
next move once, says why a run halted, follows subagents (their own machines beside the run's), and can be stepped
through after a run (a scrubber over the recorded moves, the diagram highlighting each, a subagent's own machine at
its moves); the inspector groups a subagent's text deltas as it does the run's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.console.browser import open_example, send, wait_idle
from tests.console.gallery import Hold, Route, held_examples, routes, run_to_the_middle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module

EXAMPLES_PACED = False  # the scripted model's words at once (conftest); the plan keeps its 0.4 s between steps

RECORD = """() => {  // every (state, words, subagents) the machine panel showed while the run was on, in order
    window.seen = [];
    const panel = document.getElementById('machine-panel');
    new MutationObserver(() => {
        if (document.body.dataset.running !== 'true') return;
        const words = panel.querySelector('[data-testid="focus-words"]')?.textContent || '';
        const subs = [...panel.querySelectorAll('[data-testid="focus-subagent"]')]
            .map((s) => `${s.textContent}|${s.dataset.active}`);
        const last = window.seen.at(-1);
        const now = {state: panel.dataset.state, words, subs};
        if (JSON.stringify(last) !== JSON.stringify(now)) window.seen.push(now);
    }).observe(panel, {attributes: true, childList: true, subtree: true, characterData: true});
}"""


def test_stop_settles_the_machine(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/slow_tool")
    send(page, "tides today?")
    focus = page.locator('[data-testid="machine-focus"]')
    expect(focus.locator('[data-testid="focus-current"]')).to_have_text("awaiting_result")
    moves = focus.locator('[data-testid="focus-next-move"]').all_inner_texts()
    assert len(moves) == len(set(moves)) and "finish → paused" in moves, moves  # finish → paused was listed twice
    page.click("#stop")
    wait_idle(page)
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("stopped in awaiting_result")
    words = focus.locator('[data-testid="focus-words"]')
    expect(words).to_have_text("stopped by you: no further move reaches this page")
    expect(focus.locator('[data-testid="focus-next-move"]')).to_have_count(0)  # it listed the moves of a running run
    expect(focus.locator('[data-testid="focus-no-move"]')).to_have_text("none: you stopped the run")
    assert "tools are running" not in focus.inner_text()


def test_a_halt_says_why_while_the_plan_still_ticks(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/agentic_generative_ui")
    page.evaluate(RECORD)
    send(page, "plan a launch: write the post, record a demo, then ship")
    wait_idle(page)
    halted = [s["words"] for s in page.evaluate("window.seen") if s["state"] == "halted"]
    assert halted and all("stop_after_result" in w for w in halted), halted  # it said "halted: ... or a cancel"
    expect(page.locator('[data-testid="plan-progress"]')).to_contain_text("3 / 3 done")


def events_until(served: LiveServer, route: Route, kind: str) -> int:
    """How many events a whole run of the route sends up to its first event of ``kind``."""
    with httpx.stream("POST", served.url + route.path, json=route.body, timeout=60,
                      headers={"Accept": "text/event-stream"}) as response:
        count = 0
        for line in response.iter_lines():
            if line.startswith("data:"):
                count += 1
                if json.loads(line[5:])["type"] == kind:
                    return count
    raise AssertionError(f"{route.path} sent no {kind}")


@pytest.fixture(scope="module")
def held() -> Iterator[tuple[LiveServer, Hold]]:
    with held_examples() as served:
        yield served


def test_subagents_machines_follow_the_swarm_and_the_scrubber_steps_through_them(
        page: Any, held: tuple[LiveServer, Hold]) -> None:
    served, hold = held
    route = next(r for r in routes(served) if r.path == "/multi_agent")
    run_to_the_middle(page, served, hold, route, events_until(served, route, "TOOL_CALL_START"))  # held while
    # the researcher's tool call streams
    focus = page.locator('[data-testid="machine-focus"]')
    expect(focus.locator('[data-testid="focus-current"]')).to_have_text("ready")  # the run waits on its Swarm
    expect(focus.locator('[data-testid="focus-subagent"][data-active="true"]')).to_have_count(1)
    hold.release.set()
    wait_idle(page)
    chips = page.locator('[data-testid="focus-subagent"]')
    expect(chips).to_have_count(2)
    expect(chips.first).to_have_attribute("data-state", "finished")

    rows = page.locator('[data-testid="inspector-step"] [data-testid="step-event"]').all_inner_texts()
    grouped = [r for r in rows if re.match(r"(researcher|writer): text ×\d+ ", r)]
    assert len(grouped) >= 2, rows  # a subagent's deltas, one row per run of them (they were a row each)

    page.click('[data-testid="machine-full-toggle"]')
    title, label = page.locator('[data-testid="sheet-title"]'), page.locator('[data-testid="scrub-label"]')
    expect(label).to_contain_text("latest: move")
    for _ in range(12):  # back through the run's last moves to the writer's own
        if "writer's own" in (title.text_content() or ""):
            break
        page.click('[data-testid="scrub-prev"]')
    expect(title).to_contain_text("writer's own")
    expect(label).to_contain_text("writer:")
    state = re.search(r"→ (\w+)$", label.inner_text()).group(1)  # type: ignore[union-attr]
    expect(page.locator("#machine-diagram g.state.current")).to_have_attribute("id", f"state-{state}")
    page.click('[data-testid="scrub-live"]')
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("finished")
    expect(page.locator("#machine-diagram g.state.current")).to_have_attribute("id", "state-finished")


def test_the_scrubber_steps_through_the_run_s_moves(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/backend_tool_rendering")
    send(page, "weather in Oslo")
    wait_idle(page)
    page.click('[data-testid="machine-full-toggle"]')
    pill = page.locator('[data-testid="machine-state"]')
    page.click('[data-testid="scrub-prev"]')
    expect(pill).to_have_text(re.compile(r"^ready \(move \d+ of \d+\)$"))
    expect(page.locator("#machine-diagram g.state.current")).to_have_attribute("id", "state-ready")
    expect(page.locator("#machine-diagram g.move.last")).to_have_attribute("id", re.compile(r"^move-close_text-"))
    page.locator('[data-testid="scrub"]').fill("0")
    expect(pill).to_have_text(re.compile(r"^idle \(move 0 of \d+\)$"))
    expect(page.locator('[data-testid="scrub-label"]')).to_contain_text("before the first move")
    page.click('[data-testid="scrub-live"]')
    expect(pill).to_have_text("finished")


def test_at_390_px_tool_cards_stay_in_their_subagent_and_the_inspector_reads_as_one_column(
        page: Any, examples: LiveServer) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_example(page, examples, "/multi_agent")
    send(page, "What do you know about solar power?")
    wait_idle(page)
    out = page.evaluate("""() => [...document.querySelectorAll('.subagent .tool')].map((t) => {
        const card = t.getBoundingClientRect(), bubble = t.closest('.msg').getBoundingClientRect();
        const block = t.closest('.subagent').getBoundingClientRect();
        return Math.max(card.right - bubble.right, card.right - block.right, bubble.right - block.right);
    })""")
    assert out and max(out) <= 0.5, out  # they stuck out ~18 px
    head = page.locator("#inspector-panel .inspector-head")
    spans = head.locator("span")
    arrows = [spans.nth(i).evaluate("n => getComputedStyle(n, '::before').content") for i in range(3)]
    assert arrows[1:] == ['"→ "', '"→ "'], arrows  # "Strands event → transitions → AG-UI events"
    tops = {round(spans.nth(i).bounding_box()["y"]) for i in range(3)}
    rows = page.locator('[data-testid="inspector-step"] summary').first
    columns = rows.evaluate("n => getComputedStyle(n).gridTemplateColumns.split(' ').length")
    assert columns == 2 and len(tops) == 1, (columns, tops)  # one stacked column, its heads one line in its order
