"""The console on the ``background_agents`` example (issue 29): the background task's card updates until it
holds the report, and a Strands ``Confirm`` shows the approval card whose Approve books the flight."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import open_example, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module


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


def test_a_stopped_run_shows_its_task_cancelled(page: Any, examples: LiveServer,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: Stop while the report is being written: the server cancels the task, and its card says so."""
    monkeypatch.setenv("STRANDS_AGUI_REPORT_SECONDS", "30")  # read by the tool when it runs
    open_example(page, examples, "/background_agents")
    send(page, "Write a report on sales")
    card = page.locator('[data-role="activity"]')
    expect(card).to_have_count(1)
    expect(page.locator("#stop")).to_be_enabled()
    page.click("#stop")
    wait_idle(page)
    expect(card).to_contain_text("status: cancelled")
    expect(card).to_have_attribute("data-status", "cancelled")
    expect(card).not_to_contain_text("Report on sales")


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
