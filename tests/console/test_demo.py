"""The console as people demo it, asserted on what a person sees: the chart render_chart asks for, suggested
prompts, tool cards that never claim "running" once their run is over (Stop, a cancelled run, an approval left
for a new message), the machine readable at any window size with its last move in words, text deltas grouped
in the inspector, the editable recipe, and a conversation readable on any background."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import open_example, run_inputs, send, state_json, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow
EXAMPLES_PACED = False  # the scripted model's words at once: no test here acts while it speaks (conftest)

RUNNING = "running…"


def tool_statuses(page: Any) -> list[str]:
    return page.locator('[data-testid="tool-status"]').all_inner_texts()


def test_render_chart_draws_a_bar_chart(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/backend_tool_rendering")
    send(page, "Chart of monthly sales: 12, 19, 7, 24, 15")
    chart = page.locator('[data-tool-name="render_chart"] [data-testid="chart"]')
    expect(chart).to_be_visible()
    expect(chart.locator("figcaption")).to_have_text("Monthly sales")
    expect(chart.locator('svg [data-testid="chart-bar"]')).to_have_count(5)
    expect(chart.locator("svg text")).to_have_text(["12", "19", "7", "24", "15"])
    heights = chart.locator('[data-testid="chart-bar"]').evaluate_all("bars => bars.map(b => b.getBBox().height)")
    assert heights.index(max(heights)) == 3 and heights.index(min(heights)) == 2, heights
    wait_idle(page)
    expect(page.locator('[data-role="assistant"]').last).to_contain_text("Monthly sales")


def test_suggested_prompts_come_from_examples_and_send(page: Any, examples: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, examples, "/backend_tool_rendering")
    suggestions = page.locator('[data-testid="suggestion"]')
    expect(suggestions).to_have_count(3)
    expect(suggestions.first).to_have_text("What's the weather in Lisbon?")
    suggestions.first.click()
    wait_idle(page)
    assert run_inputs(requests, "/backend_tool_rendering")[0]["messages"][-1]["content"] == \
        "What's the weather in Lisbon?"
    expect(page.locator('[data-role="assistant"]').last).to_contain_text("In Lisbon it is")
    page.select_option("#example", "/shared_state")
    expect(suggestions.first).to_have_text("Make it vegan")


def test_scripted_chat_answers_like_an_assistant(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/agentic_chat")
    send(page, "Hello! What can you do?")
    wait_idle(page)
    answer = page.locator('[data-role="assistant"]').last.inner_text()
    assert "What can you do" not in answer and "You said" not in answer, answer
    assert "background" in answer


def test_no_running_tool_after_stop(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/slow_tool")
    send(page, "tides today?")
    card = page.locator('[data-tool-name="slow_lookup"]')
    expect(card.locator('[data-testid="tool-status"]')).to_have_text(RUNNING)
    page.click("#stop")
    expect(page.locator('[data-testid="halt"]')).to_have_text("Run stopped.")
    expect(card).to_have_attribute("data-status", "unanswered")
    expect(card.locator('[data-testid="tool-status"]')).to_have_text("no result")
    assert RUNNING not in page.locator("#messages").inner_text()


def test_no_running_tool_after_a_cancelled_run(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/cancelling")
    send(page, "tides today?")
    wait_idle(page)
    expect(page.locator('[data-testid="cancelled"]')).to_be_visible()
    for card in page.locator('[data-tool-name="slow_lookup"]').all():  # the call never ran: no result, not running
        expect(card).to_have_attribute("data-status", "unanswered")
    assert RUNNING not in page.locator("#messages").inner_text()


def test_an_approval_left_for_a_new_message_is_not_running(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/human_in_the_loop")
    send(page, "Book me a flight to Paris")
    card = page.locator('[data-testid="interrupt-card"]')
    expect(card).to_be_visible()
    expect(card.locator('[data-testid="interrupt-call"]')).to_have_text("about the book_flight call above")
    expect(card.locator("pre")).to_have_count(0)  # the arguments are on the tool card only
    expect(page.locator('[data-testid="tool-args"]')).to_have_count(1)
    send(page, "Actually, never mind")
    wait_idle(page)
    expect(page.locator('[data-testid="interrupt-answer"]')).to_have_text("Superseded by a new message")
    card = page.locator('[data-tool-name="book_flight"]')  # the server's error result for the abandoned call
    expect(card).to_have_attribute("data-status", "error")
    expect(card.locator('[data-testid="tool-error"]')).to_have_text("No result was returned for this tool call.")
    expect(page.locator('[data-role="assistant"]').last).to_contain_text("I won't book anything")
    assert RUNNING not in page.locator("#messages").inner_text()


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (1024, 768), (390, 844)])
def test_the_machine_is_readable_at_any_width(page: Any, examples: LiveServer, width: int, height: int) -> None:
    """The whole machine opens over the page, fitted to the window: a state's name at least 10 px tall at every
    width, Fit included (it was a 420 x 60 px strip in the panel, its names ~3 px tall; at 1024 px the panel cut
    it), all of it in view where the window holds it (1024 px and up), panned to the current state where not."""
    page.set_viewport_size({"width": width, "height": height})
    open_example(page, examples, "/backend_tool_rendering")
    send(page, "weather in Oslo")
    wait_idle(page)
    expect(page.locator('[data-testid="machine-last"]')).to_have_text("Last move: finish  ready → finished")
    page.click('[data-testid="machine-full-toggle"]')  # the whole machine, one click away
    diagram, sheet = page.locator('[data-testid="machine-diagram"]'), page.locator('[data-testid="machine-sheet"]')
    current = page.locator("#machine-diagram g.state.current")
    for zoom in ("fit", "zoom-fit", "zoom-in"):
        if zoom != "fit":
            page.click(f'[data-testid="{zoom}"]')
        expect(diagram).to_have_attribute("data-zoom", "scaled" if zoom == "zoom-in" else "fit")
        page.wait_for_function("document.querySelector('#machine-diagram g.state.current') !== null")
        name, view, whole = current.locator("text").bounding_box(), diagram.bounding_box(), sheet.bounding_box()
        assert name["height"] >= 10, (zoom, name)  # a state's name reads without zooming
        assert 0 <= whole["x"] and whole["x"] + whole["width"] <= width and whole["y"] + whole["height"] <= height
        assert view["x"] <= name["x"] + name["width"] / 2 <= view["x"] + view["width"], (zoom, name, view)  # in view
        assert view["y"] <= name["y"] + name["height"] / 2 <= view["y"] + view["height"], (zoom, name, view)
        svg = diagram.locator("svg").bounding_box()
        if zoom != "zoom-in" and width >= 1024:  # all of it
            assert svg["width"] <= view["width"] + 1 and svg["height"] <= view["height"] + 1, (svg, view)
    page.click('[data-testid="machine-close"]')
    expect(sheet).to_be_hidden()


def test_inspector_groups_text_deltas_into_one_row(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/backend_tool_rendering")
    send(page, "weather in Oslo")
    wait_idle(page)
    rows = page.locator('[data-testid="inspector-step"]').filter(has_text="text_delta")
    causes = rows.locator('[data-testid="step-event"]').all_inner_texts()
    assert len(causes) == 2 and all(c.startswith("text ×") for c in causes), causes  # one row per text block
    assert "Let me check the weather in Oslo." in causes[0], causes
    group = page.locator('[data-testid="inspector-step"]').filter(has_text="Let me check the weather").first
    expect(group.locator('[data-testid="step-agui"]')).to_contain_text("TEXT_MESSAGE_CONTENT ×")


def test_the_recipe_is_edited_both_ways(page: Any, examples: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, examples, "/shared_state")
    page.fill('[data-testid="recipe-title"]', "Grandma's soup")
    page.locator('[data-testid="recipe-title"]').press("Enter")
    page.locator('[data-testid="recipe-title"]').blur()
    page.click('[data-testid="add-ingredient"]')
    page.locator('[data-testid="ingredient-name"]').last.fill("Leek")
    page.locator('[data-testid="ingredient-name"]').last.blur()
    assert state_json(page)["recipe"]["title"] == "Grandma's soup"
    send(page, "make it vegan")
    wait_idle(page)
    sent = run_inputs(requests, "/shared_state")[0]["state"]["recipe"]
    assert sent["title"] == "Grandma's soup" and sent["ingredients"][-1]["name"] == "Leek"
    expect(page.locator('[data-testid="recipe-preference"]')).to_contain_text(["Vegan"])
    assert state_json(page)["recipe"]["title"] == "Grandma's soup"  # the agent kept the user's edit
    names = page.locator('[data-testid="ingredient-name"]').evaluate_all("ns => ns.map(n => n.value)")
    assert "Leek" in names


CONTRAST = """() => {  // the lowest contrast ratio of the header and of each bubble's text against its own box
    const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 4).map(Number);
    const lum = ([r, g, b]) => [r, g, b]
      .map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
      .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const opaque = (node) => {
      for (let n = node; n; n = n.parentElement) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c.length < 4 || c[3] > 0.9) return c;
      }
      return [255, 255, 255];
    };
    const bubbles = document.querySelectorAll('#messages .msg .text, #messages .msg-role');
    const nodes = [document.querySelector('#chat-title'), ...bubbles];
    return Math.min(...nodes.map((n) => ratio(rgb(getComputedStyle(n).color), opaque(n))));
}"""


@pytest.mark.parametrize("colour", ["black", "navy", "white", "#ff0000", "yellow"])
def test_header_and_bubbles_are_readable_on_any_background(page: Any, examples: LiveServer, colour: str) -> None:
    open_example(page, examples, "/agentic_chat")
    send(page, f"make the background {colour}")
    wait_idle(page)
    expect(page.locator("#chat")).to_have_attribute("data-background", colour)
    assert page.evaluate(CONTRAST) >= 4.5
