"""The Dojo's Strands features (issue 26, item 4) in the console: each route is listed with the Dojo page's
suggested prompts, and the first one, clicked, gets the scripted assistant's answer (the frontend tools
``generate_haiku`` and ``write_document`` run in the page; the time picker's interrupt is answered on its card)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import assistant_texts, open_example, state_json, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow
EXAMPLES_PACED = False  # the scripted model's words at once: no test here acts while it speaks (conftest)

ANSWERS = {  # route -> (its first suggested prompt, what the assistant answers it)
    "/agentic_chat_reasoning": ("Hi there!", "how can I assist you?"),
    "/tool_based_generative_ui": ("Write me a haiku about nature.", "Here is your haiku about nature."),
    "/predictive_state_updates": ("Please write a story about a pirate named Candy Beard.",
                                  "Great, the changes are in the document."),
    "/agentic_chat_multimodal": ("Describe what you see in the image I upload.", "Attach an image to your message"),
    "/a2ui_fixed_schema": ("Find flights from SFO to JFK for next Tuesday.", "Here are 3 flights from SFO to JFK."),
    "/a2ui_recovery": ("Compare 3 luxury hotels with ratings and prices.", "Here it is: 3 luxury hotels"),
}


def first_suggestion(page: Any, examples: LiveServer, path: str, prompt: str) -> None:
    open_example(page, examples, path)
    suggestion = page.locator('[data-testid="suggestion"]').first
    expect(suggestion).to_have_text(prompt)
    suggestion.click()


@pytest.mark.parametrize("path", list(ANSWERS))
def test_the_first_suggestion_is_answered(page: Any, examples: LiveServer, path: str) -> None:
    prompt, answer = ANSWERS[path]
    first_suggestion(page, examples, path, prompt)
    expect(page.locator('[data-role="assistant"]').last).to_contain_text(answer)
    wait_idle(page)
    if path == "/predictive_state_updates":
        assert state_json(page)["document"].startswith("# The Tale of Candy Beard")


def test_the_meeting_interrupt_is_answered_on_its_card(page: Any, examples: LiveServer) -> None:
    first_suggestion(page, examples, "/interrupt", "Book an intro call with the sales team to discuss pricing.")
    card = page.locator('[data-testid="interrupt-card"]')
    expect(card.locator('[data-testid="interrupt-message"]')).to_have_text("schedule_meeting")
    card.locator("textarea").fill('{"chosen_label": "Fri, Dec 4, 10:00 AM"}')
    card.locator('[data-testid="answer"]').click()
    wait_idle(page)
    assert assistant_texts(page)[-1].startswith(
        'Done: "Intro call with Sales team to discuss pricing" is booked for Fri, Dec 4, 10:00 AM.')
