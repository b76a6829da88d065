"""Strands interventions through CopilotKit 1.74 in a browser (issue 29): the ``background_agents`` route's
``Confirm`` (its own handler, on ``book_flight``) and Strands' vended ``HumanInTheLoop`` handler
(``strands.vended_interventions.hitl``, on ``cancel_flight``) pause the run; CopilotKit's interrupt UI
(v1 ``useLangGraphInterrupt``, v2 ``useInterrupt``: the AG-UI interrupt outcome) shows the approval card with the
handler's prompt; Approve resumes the run and the tool runs, Reject (v1 ``{approved: false}``, v2 ``cancel()``:
a ``cancelled`` resume entry) resumes it and the tool is refused. Each test asserts what the page ends up showing.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.frontends.conftest import Page

pytestmark = pytest.mark.slow

CASES = {  # what the user asks, what the card says, what the page says after Approve / after Reject
    "confirm": ("Book me a flight to Porto", "Book a flight to Porto?",
                "Your flight to Porto is booked.", "I did not book the flight"),
    "hitl": ("Cancel my flight to Porto", 'Approve "cancel_flight"?',
             "Your flight to Porto is cancelled.", "I did not cancel the flight"),
}


@pytest.mark.parametrize("api", ["v1", "v2"])
@pytest.mark.parametrize("handler", list(CASES))
@pytest.mark.parametrize("button", ["approve", "reject"])
def test_an_intervention_pauses_on_the_interrupt_card_and_resumes(copilotkit: Page, api: str, handler: str,
                                                                  button: str) -> None:
    prompt, asked, approved, refused = CASES[handler]
    page = copilotkit.open(api, "background_agents")
    copilotkit.send(prompt)
    card = page.locator('[data-testid="approval"]')
    expect(card.locator('[data-testid="approval-message"]')).to_contain_text(asked)
    if handler == "hitl":  # the vended handler's prompt names the input the tool would run with
        expect(card.locator('[data-testid="approval-message"]')).to_contain_text('{"city": "Porto"}')
    card.locator(f'[data-testid="{button}"]').click()
    chat = page.locator('[data-testid="page"]')
    expect(chat).to_contain_text(approved if button == "approve" else refused)
    expect(chat).not_to_contain_text(refused if button == "approve" else approved)
    expect(card).to_have_count(0)
