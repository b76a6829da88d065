"""How runs end, wherever it happens: a RUN_ERROR after a tool result, a pending interrupt answered from its
card (the resume the page sends, and what follows), subagent blocks, a cancelled run."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import assistant_texts, open_example, run_inputs, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module
EXAMPLES_PACED = False  # the scripted model's words at once: no test here acts while it speaks (conftest)


def test_run_error_after_a_tool_result_is_shown_after_the_tool(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/after_tool")
    send(page, "weather in Oslo")
    wait_idle(page)
    card = page.locator('[data-testid="tool-call"][data-tool-name="get_weather"]')
    expect(card).to_have_attribute("data-status", "done")
    error = page.locator('[data-testid="error"]')
    expect(error).to_have_count(1)
    expect(error).to_contain_text("model exploded after the tool")
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    # the notice follows the message holding the tool card
    order = page.evaluate("""() => [...document.getElementById('messages').children].map(
        li => li.dataset.testid + (li.querySelector('[data-testid=tool-call]') ? ':tool' : ''))""")
    assert order.index("error") > order.index("message:tool"), order
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("errored")


def pause_and_answer(page: Any, server: LiveServer, path: str, prompt: str, button: str) -> list[Any]:
    """Send ``prompt``, see the run pause on an interrupt card about ``book_flight``, click ``button``."""
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, server, path)
    send(page, prompt)
    card = page.locator('[data-testid="interrupt-card"]')
    expect(card).to_be_visible()
    expect(card).to_contain_text("book_flight")  # the tool call it is about
    expect(page.locator('[data-testid="tool-call"]')).to_have_attribute("data-status", "approval")
    expect(page.locator("#status")).to_have_text("waiting for you")
    expect(page.locator('[data-testid="machine-state"]')).to_have_text(re.compile("paused|no trace"))
    card.locator(f'[data-testid="{button}"]').click()
    wait_idle(page)
    return requests


@pytest.mark.parametrize(("button", "approved", "outcome"), [
    ("approve", True, "Booked: LH 123."),
    ("reject", False, "Not booked, as you asked."),
])
def test_interrupt_card_sends_the_resume_and_shows_the_outcome(page: Any, scripted: LiveServer, button: str,
                                                               approved: bool, outcome: str) -> None:
    requests = pause_and_answer(page, scripted, "/interrupting", "book me a flight", button)
    card = page.locator('[data-testid="interrupt-card"]')
    expect(page.locator('[data-testid="interrupt-answer"]')).to_have_text("Approved" if approved else "Rejected")
    expect(card.locator("button").first).to_be_disabled()
    assert assistant_texts(page)[-1] == outcome
    # a rejected call is shown as rejected, never as an error (nor as done)
    status = "done" if approved else "rejected"
    expect(page.locator('[data-testid="tool-call"]')).to_have_attribute("data-status", status)

    first, resumed = run_inputs(requests, "/interrupting")
    assert "resume" not in first
    assert resumed["threadId"] == first["threadId"]
    assert resumed["resume"] == [{"interruptId": "int-1", "status": "resolved", "payload": {"approved": approved}}]
    calls = [c["id"] for m in resumed["messages"] for c in m.get("toolCalls") or []]
    assert calls == ["call-1"], "the client's messages after the pause go back with the resume"


def test_subagents_render_as_nested_attributed_blocks(page: Any, scripted: LiveServer) -> None:
    open_example(page, scripted, "/subagents")
    send(page, "research and write")
    wait_idle(page)
    blocks = page.locator('[data-testid="subagent"]')
    expect(blocks).to_have_count(2)
    researcher, writer = blocks.nth(0), blocks.nth(1)
    expect(researcher.locator('[data-testid="subagent-name"]')).to_have_text("↳ researcher")
    expect(researcher.locator('[data-testid="subagent-status"]')).to_have_text("done")
    expect(researcher.locator('[data-testid="message-text"]')).to_have_text("Research notes")
    expect(researcher.locator('[data-testid="tool-call"][data-tool-name="search"]')).to_have_attribute("data-status",
                                                                                                     "done")
    expect(writer).to_have_attribute("data-status", "error")
    expect(writer).to_contain_text("writer crashed")
    main = page.locator('#messages > [data-role="assistant"] > [data-testid="message-text"]')
    expect(main).to_have_text(["Stopping here."])  # the run's own text is not inside a block
    expect(page.locator('[data-testid="cancelled"]')).to_contain_text("cancelled")


@pytest.mark.parametrize(("button", "said"), [("approve", "is booked"), ("reject", "did not book")])
def test_human_in_the_loop_example_end_to_end(page: Any, examples: LiveServer, button: str, said: str) -> None:
    requests = pause_and_answer(page, examples, "/human_in_the_loop", "book me a flight to Paris", button)
    card = page.locator('[data-testid="interrupt-card"]')
    assert said in assistant_texts(page)[-1]
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("finished")
    first, resumed = run_inputs(requests, "/human_in_the_loop")
    interrupt_id = card.get_attribute("data-interrupt-id")
    assert resumed["resume"] == [{"interruptId": interrupt_id, "status": "resolved",
                                  "payload": {"approved": button == "approve"}}]
    assert resumed["threadId"] == first["threadId"]
