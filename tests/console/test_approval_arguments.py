"""The console's approval card edits the call's arguments (``runtime/building/approval.py``): the resume carries them,
the tool runs with them, and the tool card then shows the call that ran."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import assistant_texts, open_example, run_inputs, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module
EXAMPLES_PACED = False  # the scripted model's words at once: no test here acts while it speaks (conftest)


def test_an_approval_with_edited_arguments_books_what_the_user_wrote(page: Any, examples: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, examples, "/human_in_the_loop")
    send(page, "book me a flight to Paris")
    card = page.locator('[data-testid="interrupt-card"]')
    field = card.locator('[data-testid="approval-arguments"]')
    expect(field).to_have_value(json.dumps({"city": "Paris"}, indent=2))
    field.fill("{not json")
    card.locator('[data-testid="approve"]').click()  # refused in the page: nothing is sent
    expect(card.locator('[data-testid="interrupt-answer"]')).to_have_text("")
    field.fill('{"city": "Porto"}')
    card.locator('[data-testid="approve"]').click()
    wait_idle(page)
    assert "Porto is booked" in assistant_texts(page)[-1]
    _, resumed = run_inputs(requests, "/human_in_the_loop")
    assert resumed["resume"][0]["payload"] == {"approved": True, "arguments": {"city": "Porto"}}
    tool = page.locator('[data-testid="tool-call"][data-tool-name="book_flight"]')
    expect(tool).to_have_attribute("data-status", "done")
    expect(tool).to_contain_text("Porto")
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
