"""The console on the ``background_agents`` example (issue 29): the background task's card updates until it
holds the report, and a Strands ``Confirm`` shows the approval card whose Approve books the flight."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import open_example, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module
EXAMPLES_PACED = False  # the scripted model's words at once: no test here acts while it speaks (conftest)


def test_the_task_card_updates_until_it_holds_the_report(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/background_agents")
    send(page, "Write a report on sales")
    card = page.locator('[data-role="activity"]')
    expect(card).to_have_count(1)
    wait_idle(page)
    expect(card).to_contain_text("background_task")
    expect(card).to_contain_text("status: completed")
    expect(card).to_contain_text("Report on sales: all indicators are fine.")
    expect(page.locator('[data-role="assistant"]').last).to_contain_text("The report is ready")


def test_a_confirm_is_the_approval_card(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/background_agents")
    send(page, "Book me a flight to Porto")
    card = page.locator('[data-testid="interrupt-card"]')
    expect(card).to_be_visible()
    expect(card).to_contain_text("Book a flight to Porto?")
    card.locator('[data-testid="approve"]').click()
    wait_idle(page)
    expect(page.locator('[data-testid="interrupt-answer"]')).to_have_text("Approved")
    expect(page.locator('[data-role="assistant"]').last).to_contain_text("Your flight to Porto is booked.")
