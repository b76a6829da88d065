"""The console on the ``background_agents`` example (issue 29): the background task's card updates until it
holds the report, and a Strands ``Confirm`` shows the approval card whose Approve books the flight."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect
from strands import Agent, tool

from tests.console.browser import open_example, send, wait_idle
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser (Chromium) per module
EXAMPLES_PACED = False  # the scripted model's words at once: no test here acts while it speaks (conftest)


@tool
async def slow_report(topic: str) -> str:
    """A report that takes a moment.

    Args:
        topic: What the report is about.
    """
    await asyncio.sleep(0.5)
    return f"Report on {topic}: all fine."


def _later(messages: list[Any]) -> Any:
    """A report asked for starts ``slow_report``; a delivered task (Strands' synthetic call, answered) is read back."""
    from strands_agui.tooling.scripted import Text, ToolUse

    last = messages[-1]
    for block in last.get("content") or ():
        result = block.get("toolResult")
        if result is not None:
            texts = [b["text"] for b in result.get("content") or () if "text" in b]
            delivered = any("json" in b for b in result.get("content") or ())
            return [Text(f"Your report came in: {texts[0]}" if delivered and texts else "It is being written.")]
    words = " ".join(b.get("text", "") for b in last.get("content") or ())
    return [ToolUse("slow_report", {"topic": "sales"})] if "report" in words else [Text("Nothing new.")]


@pytest.fixture(scope="module")
def later() -> Iterator[LiveServer]:
    """``wait_for_completion=False``: a run that ends while its report is being written, at ``/later``."""
    from strands_agui import StrandsAgent
    from strands_agui.server.console.page import mount_console
    from strands_agui.server.endpoint import add_strands_fastapi_endpoint
    from strands_agui.tooling.scripted import ScriptedModel

    agent = Agent(model=ScriptedModel(_later), tools=[slow_report], callback_handler=None,
                  background_tasks={"always": ["slow_report"], "wait_for_completion": False})
    app = FastAPI()
    add_strands_fastapi_endpoint(app, StrandsAgent(agent, name="later", description="a report delivered later"),
                                 "/later")
    mount_console(app)
    with LiveServer(app) as served:
        yield served


def test_a_task_outliving_its_run_lands_on_its_card_in_the_next_run(page: Any, later: LiveServer) -> None:
    """Issue 29: the run ends while the report is written (the card says so); the next message's run delivers it
    onto the same card, and the answer quotes it."""
    open_example(page, later, "/later")
    send(page, "Write a report please")
    wait_idle(page)
    card = page.locator('[data-role="activity"]')
    expect(card).to_have_count(1)
    expect(card).not_to_have_attribute("data-status", "completed")
    page.wait_for_timeout(1000)  # the report is written after its run ended
    send(page, "Any news?")
    wait_idle(page)
    expect(card).to_have_count(1)
    expect(card).to_have_attribute("data-status", "completed")
    expect(card).to_contain_text("Report on sales: all fine.")
    expect(page.locator('[data-role="assistant"]').last).to_contain_text("Your report came in: Report on sales")


def test_the_task_card_updates_until_it_holds_the_report(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/background_agents")
    send(page, "Write a report on sales")
    card = page.locator('[data-role="activity"]')
    expect(card).to_have_count(1)
    wait_idle(page)
    expect(card.locator('[data-testid="task-name"]')).to_have_text("write_report")  # a card, not a field dump
    expect(card.locator('[data-testid="task-status"]')).to_have_text("completed")
    expect(card.locator('[data-testid="task-result"]')).to_have_text("Report on sales: all indicators are fine.")
    expect(card).not_to_contain_text("background_task")
    expect(card).not_to_contain_text("taskId")
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
    expect(card.locator('[data-testid="task-status"]')).to_have_text("cancelled")
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
