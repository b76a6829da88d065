"""What a person sees in the console (issue 28): an A2UI surface painted while it streams, a run machine
readable at every width, no stale indicator after Stop / a rejection / a new message / a dead server, three
designed layouts, and scripted answers that read like an assistant's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect

from strands_agui.runtime.recordings import read_log
from strands_agui.server.console.page import mount_console
from tests.console.app import build_examples_app
from tests.console.browser import assistant_texts, open_example, run_inputs, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module
EXAMPLES_PACED = False  # the scripted model's words at once (conftest); the one test that watches a surface stream
# serves the examples at their pace itself

WIDTHS = (390, 1024, 1440)
PANES = ("#chat", "#state-panel", "#machine-panel", "#inspector-panel")


# ---- 1. A2UI ---------------------------------------------------------------------------------------------

def test_the_a2ui_surface_is_painted_while_it_streams(page: Any) -> None:
    with LiveServer(build_examples_app()) as examples:  # at the served pace: the surface streams word by word
        surface_streams(page, examples)


def surface_streams(page: Any, examples: LiveServer) -> None:
    origins: set[str] = set()
    page.on("request", lambda r: origins.add(f"{urlparse(r.url).scheme}://{urlparse(r.url).netloc}"))
    open_example(page, examples, "/a2ui_generative_ui")
    page.evaluate("""() => {  // every state of the surface the page showed, frame by frame
        window.paints = [];
        new MutationObserver(() => {
            const s = document.querySelector('[data-testid="a2ui-surface"]');
            const seen = s ? `${s.dataset.final}|${s.innerText}` : null;
            if (seen && window.paints.at(-1) !== seen) window.paints.push(seen);
        }).observe(document.getElementById('messages'), {subtree: true, childList: true, characterData: true});
    }""")
    send(page, "A packing checklist: passport, charger and sunscreen")
    wait_idle(page)
    surface = page.locator('[data-testid="a2ui-surface"]')
    expect(surface).to_have_count(1)  # one surface, on the generate_a2ui card: not one per call
    expect(surface).to_have_attribute("data-final", "true")
    expect(surface.get_by_role("heading", name="Packing checklist")).to_be_visible()
    expect(surface.locator("li")).to_have_text(["passport", "charger", "sunscreen"])
    expect(surface.locator('[data-a2ui="Card"]')).to_be_visible()
    card = page.locator('[data-testid="tool-call"][data-tool-name="generate_a2ui"]')
    expect(card.locator('[data-testid="a2ui-surface"]')).to_have_count(1)
    expect(page.locator("#messages").get_by_text("Here it is: Packing checklist, drawn above.")).to_be_visible()
    paints = page.evaluate("window.paints")
    streamed = [p for p in paints if p.startswith("false|")]
    assert streamed, f"the surface was only drawn from the result: {paints}"
    assert paints[-1].startswith("true|")
    assert origins == {examples.url}, origins  # nothing from another origin


def test_a_partial_render_call_draws_what_has_arrived(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/a2ui_generative_ui")
    args = json.dumps({"surfaceId": "s", "components": [
        {"id": "root", "component": "Card", "child": "body"},
        {"id": "body", "component": "Column", "children": ["title", "list"]},
        {"id": "title", "component": "Text", "text": "Errands", "variant": "h2"},
        {"id": "list", "component": "List", "children": {"componentId": "item", "path": "/items"}},
        {"id": "item", "component": "Text", "text": {"path": "name"}}],
        "data": {"items": [{"name": "bread"}, {"name": "stamps"}]}})
    cut = args.index("stamps") + 3  # inside the second item's name
    drawn = page.evaluate("""async ([text]) => {
        const { surfaceFromArgs, renderSurface } = await import('/console/a2ui.js');
        const s = renderSurface(surfaceFromArgs(text));
        return s ? [...s.querySelectorAll('[data-a2ui="Text"]')].map((n) => n.textContent) : null;
    }""", [args[:cut]])
    assert drawn == ["Errands", "bread"]
    before_list = page.evaluate("""async ([text]) => {
        const { surfaceFromArgs, renderSurface } = await import('/console/a2ui.js');
        const s = renderSurface(surfaceFromArgs(text));
        return s ? [...s.querySelectorAll('[data-a2ui="Text"]')].map((n) => n.textContent) : null;
    }""", [args[:args.index('{"id": "list"')]])
    assert before_list == ["Errands"]


# ---- 2. the machine --------------------------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_the_machine_follows_the_run_legibly_at_every_width(page: Any, scripted: LiveServer, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    open_example(page, scripted, "/slow_tool")
    send(page, "tides today?")
    focus = page.locator('[data-testid="machine-focus"]')
    current = focus.locator('[data-testid="focus-current"]')
    expect(page.locator('[data-tool-name="slow_lookup"] [data-testid="tool-status"]')).to_have_text("running…")
    expect(current).to_have_text("awaiting_result")  # mid-run: the turn ended, the tool runs (end_turn's move)
    expect(focus.locator('[data-testid="focus-from"]')).to_have_text("ready end_turn → ")
    expect(focus.locator('[data-testid="focus-next-move"]')).to_contain_text(["receive_results → "])
    current.scroll_into_view_if_needed()
    size = float(current.evaluate("n => getComputedStyle(n).fontSize").removesuffix("px"))
    assert size >= 16, size  # legible without zooming
    box = current.bounding_box()
    assert 0 <= box["x"] and box["x"] + box["width"] <= width, box
    for move in focus.locator('[data-testid="focus-next-move"]').all():
        b = move.bounding_box()
        assert 0 <= b["x"] and b["x"] + b["width"] <= width and move.evaluate("n => n.scrollWidth <= n.clientWidth + 1")
    page.click("#stop")
    wait_idle(page)
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("stopped in awaiting_result")
    expect(focus.locator('[data-testid="focus-note"]')).to_contain_text("You stopped the run here")


def test_the_whole_machine_is_one_click_away_with_no_name_clipped(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/backend_tool_rendering")
    send(page, "weather in Paris")
    wait_idle(page)
    diagram = page.locator('[data-testid="machine-diagram"]')
    expect(diagram).to_be_hidden()
    page.click('[data-testid="machine-full-toggle"]')
    expect(diagram.locator("svg")).to_be_visible()
    expect(page.locator("#machine-diagram g.state.current")).to_have_attribute("id", "state-finished")
    for zoom in ("zoom-in", "zoom-fit"):
        page.click(f'[data-testid="{zoom}"]')
        clipped = page.evaluate("""() => [...document.querySelectorAll('#machine-diagram g.state')].filter((g) => {
            const box = g.querySelector('path, polygon').getBBox(), text = g.querySelector('text').getBBox();
            return text.x < box.x - 0.5 || text.x + text.width > box.x + box.width + 0.5;
        }).map((g) => g.id)""")
        assert clipped == [], clipped


# ---- 3. no stale state -----------------------------------------------------------------------------------

def test_the_header_status_is_the_selected_thread_s(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/human_in_the_loop")
    send(page, "Book me a flight to Paris")
    wait_idle(page)
    expect(page.locator("#status")).to_have_text("waiting for you")
    page.select_option("#example", "/agentic_chat")
    expect(page.locator("#status")).to_have_text("idle")
    page.select_option("#example", "/human_in_the_loop")
    expect(page.locator("#status")).to_have_text("waiting for you")


def test_a_rejected_call_is_not_an_error_and_its_card_settles(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/human_in_the_loop")
    send(page, "Book me a flight to Paris")
    expect(page.locator('[data-testid="interrupt-title"]')).to_have_text("Waiting for you")
    page.click('[data-testid="reject"]')
    wait_idle(page)
    call = page.locator('[data-testid="tool-call"][data-tool-name="book_flight"]')
    expect(call).to_have_attribute("data-status", "rejected")
    expect(call.locator('[data-testid="tool-status"]')).to_have_text(re.compile("^rejected"))
    expect(call.locator('[data-testid="tool-error"]')).to_be_hidden()
    expect(page.locator('[data-testid="interrupt-title"]')).to_have_text("Rejected")
    expect(page.locator("#status")).to_have_text("idle")


def test_an_approval_left_for_a_new_message_says_so(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/human_in_the_loop")
    send(page, "Book me a flight to Paris")
    expect(page.locator('[data-testid="interrupt-title"]')).to_have_text("Waiting for you")
    send(page, "never mind")
    wait_idle(page)
    expect(page.locator('[data-testid="interrupt-title"]')).to_have_text("Not answered: you sent a new message")
    expect(page.locator('[data-testid="approve"]')).to_be_disabled()
    expect(page.locator("#status")).to_have_text("idle")


def test_a_plan_settles_on_stop_and_the_log_stays_available(page: Any, examples: LiveServer, tmp_path: Path) -> None:
    open_example(page, examples, "/agentic_generative_ui")
    send(page, "Help me launch a podcast")
    steps = page.locator('[data-testid="plan-step"]')
    expect(steps.first).to_have_attribute("data-status", "completed")  # the plan is under way
    page.click("#stop")
    wait_idle(page)
    statuses = [s.get_attribute("data-status") for s in steps.all()]
    assert "pending" not in statuses and "in_progress" not in statuses and "stopped" in statuses, statuses
    expect(page.locator('[data-testid="plan-progress"]')).to_contain_text("stopped")
    expect(page.locator("#status")).to_have_text("stopped by you")
    log_button = page.locator('[data-testid="download-log"]')
    expect(log_button).to_be_enabled()
    with page.expect_download() as info:
        log_button.click()
    target = tmp_path / info.value.suggested_filename
    info.value.save_as(target)
    log = read_log(target, partial=True)
    assert log.input_data is not None and log.input_data.messages[-1].content == "Help me launch a podcast"
    assert log.events, "the events the trace carried"


def test_a_server_that_went_away_is_named_with_what_to_do(page: Any) -> None:
    with LiveServer(build_examples_app()) as gone:
        open_example(page, gone, "/agentic_chat")
    page.on("console", lambda m: None)
    send(page, "Hello! What can you do?")
    wait_idle(page)
    error = page.locator('[data-testid="error"]')
    expect(error).to_contain_text("The server did not answer")
    expect(error).to_contain_text("Start it again")
    assert "Failed to fetch" not in page.locator("#messages").inner_text()
    expect(page.locator('[data-testid="inspector-empty"]')).to_contain_text("did not answer this run")
    assert "inspection is off" not in page.locator('[data-testid="inspector-empty"]').inner_text()
    expect(page.locator("#status")).to_have_text("server unreachable")


def test_no_examples_says_what_to_do_and_disables_send(page: Any) -> None:
    app = FastAPI()
    mount_console(app)
    with LiveServer(app) as bare:
        page.goto(bare.url + "/")
        page.wait_for_selector("body[data-ready=true]")
        error = page.locator('[data-testid="error"]')
        expect(error).to_contain_text("This server lists no agents")
        expect(error).to_contain_text("strands-agui serve")
        assert "HTTP 404: {" not in error.inner_text()
        expect(page.locator("#send")).to_be_disabled()
        expect(page.locator("#prompt")).to_be_disabled()


# ---- 4. three layouts ------------------------------------------------------------------------------------

LAYOUT = """(selectors) => {
    const doc = document.documentElement;
    const scrolls = (n) => {  // a box that scrolls now (its content is taller or wider than it)
        const s = getComputedStyle(n);
        const y = /(auto|scroll)/.test(s.overflowY) && n.scrollHeight > n.clientHeight + 1;
        const x = /(auto|scroll)/.test(s.overflowX) && n.scrollWidth > n.clientWidth + 1;
        return y || x;
    };
    const clipped = (n) => {  // content cut sideways (hidden overflow), form fields aside
        if (['INPUT', 'TEXTAREA', 'SELECT', 'OPTION'].includes(n.tagName)) return false;
        const s = getComputedStyle(n);
        return /(hidden|clip)/.test(s.overflowX) && n.scrollWidth > n.clientWidth + 2 && n.clientWidth > 2;
    };
    const panes = selectors.map((sel) => {
        const pane = document.querySelector(sel), box = pane.getBoundingClientRect();
        const all = [pane, ...pane.querySelectorAll('*')].filter((n) => n.getClientRects().length);
        return {sel, x: box.x, right: box.right, width: box.width,
                scrollers: all.filter(scrolls).map((n) => n.id || n.className),
                clipped: all.filter(clipped).map((n) => n.id || n.className)};
    });
    return {pageWidth: doc.scrollWidth, viewport: doc.clientWidth, panes,
            header: document.querySelector('.topbar').getBoundingClientRect().width,
            prompt: document.getElementById('prompt').getBoundingClientRect().width};
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_each_width_is_a_designed_layout(page: Any, examples: LiveServer, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    open_example(page, examples, "/shared_state")
    send(page, "Add mushrooms and make it quick")
    wait_idle(page)
    send(page, "A recipe for pancakes, high protein")
    wait_idle(page)
    layout = page.evaluate(LAYOUT, list(PANES))
    assert layout["pageWidth"] <= layout["viewport"] == width, layout  # no horizontal page scroll
    assert layout["header"] >= width - 1, layout
    chat = layout["panes"][0]
    assert layout["prompt"] >= chat["width"] - 40, layout  # the prompt box spans the chat, never squashed
    for pane in layout["panes"]:
        assert 0 <= pane["x"] and pane["right"] <= width + 0.5, pane
        assert len(pane["scrollers"]) <= 1, pane  # one scroll container per pane
        assert pane["clipped"] == [], pane
    columns = sorted({round(p["x"]) for p in layout["panes"]})
    assert len(columns) == {390: 1, 1024: 2, 1440: 3}[width], layout


# ---- 5. scripted answers ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "prompt", "said"), [
    ("/multi_agent", "What do you know about solar power?", "Here is what the team knows about solar power:"),
    ("/human_in_the_loop", "Fly me to Tokyo next week", "I can book a flight to Tokyo for next week."),
    ("/shared_state", "Add mushrooms and make it quick", "Sure: I set the cooking time to 15 min, added mushrooms"),
])
def test_a_suggested_prompt_gets_an_assistant_s_answer(page: Any, examples: LiveServer, path: str, prompt: str,
                                                        said: str) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, examples, path)
    page.locator('[data-testid="suggestion"]', has_text=prompt).click()
    wait_idle(page)
    answers = " ".join(assistant_texts(page))
    assert said in answers and prompt not in answers, answers
    assert run_inputs(requests, path)[0]["messages"][-1]["content"] == prompt
