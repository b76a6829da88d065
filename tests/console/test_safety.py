"""What a model, a tool or the state puts on the page is shown, never run: HTML and script in text, tool
arguments and results render as text; markdown renders; the frontend tool refuses anything but a colour or
a gradient; the page's files and policy keep everything on its own origin."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.app import HOSTILE
from tests.console.browser import chat_background, open_example, run_inputs, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module

NO_SCRIPT_RAN = "() => window.__xss === undefined"


def test_html_and_script_from_the_model_and_tools_render_as_text(page: Any, scripted: LiveServer) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    open_example(page, scripted, "/hostile")
    send(page, "show me markup")
    wait_idle(page)
    messages = page.locator("#messages")
    card = page.locator('[data-testid="tool-call"][data-tool-name="echo_markup"]')
    expect(card).to_have_attribute("data-status", "done")
    expect(card.locator('[data-testid="tool-result"]')).to_contain_text(HOSTILE)
    expect(card.locator('[data-testid="tool-args"]')).to_contain_text("onerror")
    first = page.locator('[data-role="assistant"] > [data-testid="message-text"]').first
    expect(first).to_contain_text('<img src=x onerror="window.__xss=1">')
    expect(first).to_contain_text("<script>window.__xss=2</script>")
    expect(first.locator("strong")).to_have_text("Bold")  # markdown still renders
    expect(first.locator("code")).to_have_text("code")
    assert page.evaluate(NO_SCRIPT_RAN)
    for tag in ("img", "script", "b", "iframe"):
        expect(messages.locator(tag)).to_have_count(0)
    last = page.locator('[data-role="assistant"] > [data-testid="message-text"]').last
    expect(last).to_contain_text("[a link](javascript:")  # markdown-it refuses the javascript: link
    expect(last.locator("a")).to_have_count(0)
    assert not [u for u in requests if u.rstrip("/").endswith("/x")], requests


def test_interrupt_message_and_state_values_render_as_text(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/interrupting")
    send(page, "book it")
    expect(page.locator('[data-testid="interrupt-message"]')).to_have_text("Book flight LH 123 for <b>you</b>?")
    expect(page.locator("#messages b")).to_have_count(0)


@pytest.mark.parametrize("value", [
    "url(http://127.0.0.1:9/leak.png)",
    "red;background-image:url(http://127.0.0.1:9/leak.png)",
    "image-set(url(http://127.0.0.1:9/leak.png)1x)",
    "expression(alert(1))",
    "nonsense-value",
])
def test_change_background_refuses_what_is_not_a_colour_or_gradient(page: Any, scripted: LiveServer,
                                                                    value: str) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, scripted, "/agentic_chat")
    send(page, f"make the background {value}")
    card = page.locator('[data-testid="tool-call"][data-tool-name="change_background"]')
    expect(card).to_have_attribute("data-status", "error")
    expect(card.locator('[data-testid="tool-error"]')).to_contain_text("colour or gradient")
    wait_idle(page)
    assert chat_background(page) == "rgb(255, 255, 255)"
    assert page.evaluate("document.getElementById('chat').style.background") == ""
    assert not [r.url for r in requests if "leak" in r.url]
    tool_message = run_inputs(requests, "/agentic_chat")[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "colour or gradient" in tool_message["error"]


def test_change_background_accepts_a_gradient(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/agentic_chat")
    send(page, "make the background linear-gradient(red,blue)")
    card = page.locator('[data-testid="tool-call"][data-tool-name="change_background"]')
    expect(card).to_have_attribute("data-status", "done")
    wait_idle(page)
    assert "linear-gradient" in page.evaluate("getComputedStyle(document.getElementById('chat')).backgroundImage")
