"""A Strands background task that outlives its run, in CopilotKit 1.74's v2 chat (issue 29): ``background_agents``
served with ``STRANDS_AGUI_REPORT_LATER=1`` (``wait_for_completion: False``). The first run ends while the report
is written (the task card, drawn by the page's ``renderActivityMessages`` renderer, is not ``completed``); the
user's next message's run delivers it onto the same card, ``completed`` with the report, and the agent says so.
CopilotKit's runtime (``@ag-ui/client`` 0.0.59) never sends activity messages back: the server remembers the card.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.frontends.conftest import Page, serve_cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``strands-agui serve`` whose ``background_agents`` lets a report outlive its run (this module's runtime
    talks to it instead of the session's server)."""
    later = {"STRANDS_AGUI_REPORT_LATER": "1", "STRANDS_AGUI_REPORT_SECONDS": "5"}
    with serve_cli(tmp_path_factory.mktemp("sessions-later"), env=later) as url:
        yield url


def test_a_report_outliving_its_run_lands_on_its_card_with_the_next_message(copilotkit: Page) -> None:
    page = copilotkit.open("v2", "background_agents")
    copilotkit.send("Write a report on sales")
    chat = page.locator('[data-testid="page"]')
    expect(chat).to_contain_text("I started the report")
    card = page.locator('[data-testid="task-card"]')
    expect(card).to_have_count(1)
    expect(card).not_to_have_attribute("data-status", "completed")  # the run ended while the task works
    page.wait_for_timeout(7000)  # the report (5 s from its dispatch) is written after its run ended
    copilotkit.send("Any news?")
    expect(chat).to_contain_text("The report is ready: see its card.")
    expect(card).to_have_count(1)
    expect(card).to_have_attribute("data-status", "completed")
    expect(card.locator('[data-testid="task-result"]')).to_have_text("Report on sales: all indicators are fine.")
