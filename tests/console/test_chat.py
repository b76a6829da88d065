"""The conversation in the browser: streamed text, frontend and backend tools, state views, errors, Stop, and
threads that keep to their example (no state, style or background carried to another one)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import (
    assistant_texts,
    chat_background,
    open_example,
    run_inputs,
    send,
    state_json,
    wait_idle,
)
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module

BLUE = "rgb(0, 0, 255)"
PANEL = "rgb(255, 255, 255)"


def test_frontend_tool_changes_background_and_sends_follow_up(page: Any, server: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, server, "/agentic_chat")
    page.evaluate("""() => {  // record every text the first assistant message shows, to see it stream
        window.seen = [];
        new MutationObserver(() => {
            const t = document.querySelector('[data-role="assistant"] > [data-testid="message-text"]');
            if (t && t.textContent && window.seen.at(-1) !== t.textContent) window.seen.push(t.textContent);
        }).observe(document.getElementById('messages'), {subtree: true, childList: true, characterData: true});
    }""")
    send(page, "make the background blue")

    card = page.locator('[data-testid="tool-call"][data-tool-name="change_background"]')
    expect(card).to_be_visible()
    page.wait_for_function(f"() => getComputedStyle(document.getElementById('chat')).backgroundColor === '{BLUE}'")
    expect(card.locator('[data-testid="tool-result"]')).to_contain_text("background changed to")
    expect(page.locator('[data-testid="halt"]').first).to_contain_text("change_background")
    page.wait_for_function("""() => [...document.querySelectorAll(
        '[data-role="assistant"] > [data-testid="message-text"]')].filter(e => e.textContent).length >= 2""")
    wait_idle(page)

    seen = page.evaluate("window.seen")
    assert len(seen) >= 2 and all(b.startswith(a.strip()) for a, b in zip(seen, seen[1:], strict=False)), seen
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    expect(page.locator("#status")).to_have_text("idle")

    first, follow_up = run_inputs(requests, "/agentic_chat")[:2]
    assert set(first) == {"threadId", "runId", "messages", "state", "tools", "context", "forwardedProps",
                          "protocolVersion"}
    assert first["protocolVersion"] == "1.0"  # the console reads the 1.0 stream (docs/protocol-versions.md)
    assert first["forwardedProps"] == {"strandsAgui": {"inspect": True}}
    assert [t["name"] for t in first["tools"]] == ["change_background"]
    assert first["messages"][-1]["role"] == "user" and first["messages"][-1]["content"] == "make the background blue"
    assert follow_up["threadId"] == first["threadId"] and follow_up["runId"] != first["runId"]
    tool_message = follow_up["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"].startswith("background changed to")
    assert tool_message["toolCallId"] == card.get_attribute("data-tool-call-id")
    calls = [c for m in follow_up["messages"] for c in m.get("toolCalls") or []]
    assert [c["id"] for c in calls if c["function"]["name"] == "change_background"] == [tool_message["toolCallId"]]


def test_backend_tool_card_shows_arguments_and_result(page: Any, server: LiveServer) -> None:
    open_example(page, server, "/backend_tool_rendering")
    send(page, "weather in Paris")
    card = page.locator('[data-testid="tool-call"][data-tool-name="get_weather"]').first
    expect(card).to_be_visible()
    expect(card.locator('[data-testid="tool-args"]')).to_contain_text("Paris")
    expect(card.locator('[data-testid="tool-result"]')).not_to_be_empty()
    expect(card).to_have_attribute("data-status", "done")
    wait_idle(page)
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    assert assistant_texts(page), "no assistant text was shown"


def test_state_snapshot_and_patches_render_live_per_thread(page: Any, scripted: LiveServer,
                                                           received: list[dict[str, Any]]) -> None:
    open_example(page, scripted, "/state_patches")
    send(page, "a recipe please")
    expect(page.locator('[data-testid="recipe-title"]')).to_have_value(re.compile("soup", re.IGNORECASE))
    wait_idle(page)
    expect(page.locator('[data-testid="recipe-title"]')).to_have_value("Leek soup")
    assert state_json(page) == {"recipe": {"title": "Leek soup", "ingredients": ["leek"]}, "runs": 1}

    page.select_option("#example", "/backend_tool_rendering")  # another example: another thread
    assert state_json(page) == {}
    expect(page.locator('[data-testid="recipe"]')).to_have_count(0)
    page.select_option("#example", "/state_patches")
    expect(page.locator('[data-testid="recipe-title"]')).to_have_value("Leek soup")

    send(page, "more")
    wait_idle(page)
    assert state_json(page) == {"recipe": {"title": "Leek soup", "ingredients": ["leek", "leek"]}, "runs": 2}
    first, second = [b for b in received if b["messages"][0].get("content") == "a recipe please"][-2:]
    assert second["threadId"] == first["threadId"]
    assert second["state"] == {"recipe": {"title": "Leek soup", "ingredients": ["leek"]}, "runs": 1}
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == ["a recipe please", "more"]


def test_recipe_example_renders_the_recipe(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/shared_state")
    expect(page.locator('[data-testid="recipe-title"]')).to_have_value("Make Your Recipe")  # the initial state
    send(page, "make a vegetarian pasta recipe, add basil")
    wait_idle(page)
    expect(page.locator('[data-testid="recipe-title"]')).to_have_value("Vegetarian Pasta")
    expect(page.locator('[data-testid="recipe-preference"]')).to_have_text(["Vegetarian"])
    assert "Basil" in page.locator('[data-testid="ingredient-name"]').evaluate_all("ns => ns.map(n => n.value)")
    assert len(page.locator('[data-testid="recipe-instructions"]').input_value().splitlines()) >= 3
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    assert state_json(page)["recipe"]["title"] == "Vegetarian Pasta"


EMOJI_IN_COLOUR = """(text) => {  // draw the glyph in the page's own font stack: a colour emoji has coloured pixels
    const font = getComputedStyle(document.querySelector('[data-testid="ingredient"] .emoji')).fontFamily;
    const canvas = Object.assign(document.createElement('canvas'), {width: 40, height: 40});
    const g = canvas.getContext('2d');
    g.font = `32px ${font}`;
    g.fillStyle = '#000';
    g.fillText(text, 2, 34);
    const px = g.getImageData(0, 0, 40, 40).data;
    const coloured = (i) => px[i + 3] > 0 && (px[i] !== px[i + 1] || px[i + 1] !== px[i + 2]);
    for (let i = 0; i < px.length; i += 4) if (coloured(i)) return true;
    return false;
}"""


def test_emoji_render_in_colour(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/shared_state")
    expect(page.locator('[data-testid="ingredient-name"]').first).to_have_value("Carrots")
    assert page.evaluate(EMOJI_IN_COLOUR, "🥕"), "no colour emoji font: `make tools` installs fonts-noto-color-emoji"


def test_plan_steps_tick_off_as_they_complete(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/agentic_generative_ui")
    page.evaluate("""() => {  // every status sequence the plan shows while it progresses
        window.plans = [];
        new MutationObserver(() => {
            const s = [...document.querySelectorAll('[data-testid="plan-step"]')].map(e => e.dataset.status).join(',');
            if (s && window.plans.at(-1) !== s) window.plans.push(s);
        }).observe(document.getElementById('state'), {subtree: true, childList: true});
    }""")
    send(page, "plan a trip: book flights, pack, and then fly")
    wait_idle(page)
    steps = page.locator('[data-testid="plan-step"]')
    expect(steps).to_have_count(3)
    expect(steps.first).to_contain_text("Book flights")
    for i in range(3):
        expect(steps.nth(i)).to_have_attribute("data-status", "completed")
    expect(page.locator('[data-testid="plan-progress"]')).to_have_text("3 / 3 done")
    plans = page.evaluate("window.plans")
    assert plans[0] == "pending,pending,pending" and plans[-1] == "completed,completed,completed", plans
    assert "completed,in_progress,pending" in plans, plans  # the second step was seen working
    expect(page.locator('[data-testid="error"]')).to_have_count(0)


@pytest.mark.parametrize(("path", "shown"), [
    ("/failing", re.compile(r"RUN_ERROR.*boom")),
    ("/missing", re.compile(r"HTTP 404.*Not Found")),
])
def test_errors_are_shown(page: Any, scripted: LiveServer, path: str, shown: re.Pattern[str]) -> None:
    open_example(page, scripted, path)
    send(page, "hello")
    error = page.locator('[data-testid="error"]')
    expect(error).to_be_visible()
    expect(error).to_have_text(shown)
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    wait_idle(page)
    expect(page.locator("#send")).to_be_enabled()


def test_stop_aborts_the_run(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/endless")
    send(page, "go on")
    expect(page.locator('[data-role="assistant"]')).to_contain_text("and on and on")
    page.click("#stop")
    expect(page.locator('[data-testid="halt"]')).to_have_text("Run stopped.")
    expect(page.locator("#status")).to_have_text("stopped by you")
    expect(page.locator("#send")).to_be_enabled()


def test_switching_examples_carries_no_background_state_or_messages(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/agentic_chat")
    send(page, "make the background blue")
    page.wait_for_function(f"() => getComputedStyle(document.getElementById('chat')).backgroundColor === '{BLUE}'")
    wait_idle(page)
    for path in ("/backend_tool_rendering", "/shared_state", "/agentic_generative_ui"):
        page.select_option("#example", path)
        assert chat_background(page) == PANEL, path
        expect(page.locator('[data-testid="message"]')).to_have_count(0)
        expect(page.locator('[data-testid="halt"]')).to_have_count(0)
    expect(page.locator('[data-testid="plan"]')).to_have_count(0)
    page.select_option("#example", "/agentic_chat")  # the example's own thread keeps its background
    assert chat_background(page) == BLUE
    page.click("#new-thread")
    assert chat_background(page) == PANEL
