"""A click on an A2UI surface's button in CopilotKit 1.74 (v2 chat, its A2UI renderer, the runtime's ``a2ui: {}``
middleware) reaches our route as the field sends it, and the example answers it: the same shape the console
sends itself (``tests/console/test_a2ui_actions.py``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.frontends.conftest import Page

pytestmark = pytest.mark.slow


def test_done_on_the_checklist_is_answered_through_copilotkit(copilotkit: Page) -> None:
    page = copilotkit.open("v2", "a2ui_generative_ui")
    copilotkit.send("show me a checklist for a trip: passport, tickets and charger")
    chat = page.locator('[data-testid="page"]')
    expect(chat).to_contain_text("Here it is: Checklist for a trip, drawn above.")
    page.get_by_role("button", name="Done", exact=True).click()
    expect(chat).to_contain_text("Noted: Checklist for a trip is done (passport, tickets and charger).")
