"""Every example route through CopilotKit 1.74 in a browser, under the v1 API and the v2 hooks.

The page (``src/``) is what a CopilotKit app writes: v1 ``<CopilotKit runtimeUrl agent>`` with
``useCopilotAction`` / ``useCoAgent`` / ``useCoAgentStateRender`` / ``useLangGraphInterrupt`` and react-ui's
``<CopilotChat>``; v2 ``<CopilotKitProvider>`` with ``useFrontendTool`` / ``useAgent`` / ``useInterrupt`` /
``useDefaultRenderTool`` and the v2 ``<CopilotChat>``. CopilotKit's runtime (``@ag-ui/client`` 0.0.59, as it
pins it) sits between the page and ``strands-agui serve``. Each test asserts what the page ends up holding.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.frontends.conftest import Page

pytestmark = pytest.mark.slow
APIS = ["v1", "v2"]


def state_of(page: Any) -> Any:
    return json.loads(page.locator('[data-testid="state"]').text_content())


@pytest.mark.parametrize("api", APIS)
def test_agentic_chat_runs_change_background_in_the_page_and_answers_its_follow_up(copilotkit: Page,
                                                                                    api: str) -> None:
    page = copilotkit.open(api, "agentic_chat")
    copilotkit.send("make the background pink")
    chat = page.locator('[data-testid="page"]')
    expect(chat).to_contain_text("Sure, changing the background to pink.")
    expect(chat).to_have_attribute("data-background", "pink")  # the frontend tool ran in the page
    expect(chat).to_contain_text("Done: the background is now pink.")  # the follow-up run, answered
    assert page.evaluate("getComputedStyle(document.querySelector('[data-testid=page]')).backgroundColor") \
        == "rgb(255, 192, 203)"


@pytest.mark.parametrize("api", APIS)
def test_backend_tools_render_as_cards_with_their_results(copilotkit: Page, api: str) -> None:
    page = copilotkit.open(api, "backend_tool_rendering")
    copilotkit.send("weather in Paris")
    weather = page.locator('[data-testid="tool-card"][data-tool="get_weather"]')
    expect(weather).to_have_attribute("data-status", "complete")
    expect(weather.locator('[data-testid="tool-args"]')).to_have_text('{"location":"Paris"}')
    assert json.loads(weather.locator('[data-testid="tool-result"]').text_content())["location"] == "Paris"
    expect(page.locator('[data-testid="page"]')).to_contain_text("In Paris it is")

    copilotkit.send("plot 3, 1, 4")  # a second run on the same thread
    chart = page.locator('[data-testid="tool-card"][data-tool="render_chart"]')
    expect(chart).to_have_attribute("data-status", "complete")
    assert json.loads(chart.locator('[data-testid="tool-result"]').text_content())["values"] == [3.0, 1.0, 4.0]
    expect(weather).to_have_count(1)


@pytest.mark.parametrize("api", APIS)
def test_shared_state_recipe_is_edited_by_the_agent(copilotkit: Page, api: str) -> None:
    page = copilotkit.open(api, "shared_state")
    expect(page.locator('[data-testid="state"]')).to_contain_text('"title":"Make Your Recipe"')  # the page's own
    copilotkit.send("make it a vegan recipe for pancakes")
    expect(page.locator('[data-testid="page"]')).to_contain_text('updated "Pancakes"')
    recipe = state_of(page)["recipe"]
    assert recipe["title"] == "Pancakes" and recipe["special_preferences"] == ["Vegan"]
    assert [i["name"] for i in recipe["ingredients"]] == ["Carrots"]  # the page's own state reached the agent


@pytest.mark.parametrize("api", APIS)
def test_generative_ui_plan_steps_end_completed(copilotkit: Page, api: str) -> None:
    page = copilotkit.open(api, "agentic_generative_ui")
    copilotkit.send("plan a trip: book flights, reserve a hotel, then pack")
    steps = page.locator('[data-testid="plan-step"]')
    expect(steps).to_have_text(["Book flights", "Reserve a hotel", "Pack"])
    expect(page.locator('[data-testid="plan-step"][data-status="completed"]')).to_have_count(3)
    assert [s["status"] for s in state_of(page)["steps"]] == ["completed"] * 3
    if api == "v1":  # useCoAgentStateRender drew the plan in the chat too (its state stops at the tool result)
        expect(page.locator('[data-testid="chat-plan-step"]').first).to_be_visible()


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("button", "answer"), [
    ("approve", "Your flight to Oslo is booked (reference FL-"),
    ("reject", "I did not book the flight"),
])
def test_approval_interrupt_resumes_the_run(copilotkit: Page, api: str, button: str, answer: str) -> None:
    page = copilotkit.open(api, "human_in_the_loop")
    copilotkit.send("book a flight to Oslo")
    card = page.locator('[data-testid="approval"]')
    expect(card.locator('[data-testid="approval-message"]')).to_contain_text("Oslo")
    card.locator(f'[data-testid="{button}"]').click()
    expect(page.locator('[data-testid="page"]')).to_contain_text(answer)
    expect(card).to_have_count(0)


@pytest.mark.parametrize("api", APIS)
def test_multi_agent_writer_answers_after_the_researcher(copilotkit: Page, api: str) -> None:
    page = copilotkit.open(api, "multi_agent")
    copilotkit.send("redis")
    chat = page.locator('[data-testid="page"]')
    expect(chat).to_contain_text("Let me search our notes on redis.")
    expect(chat).to_contain_text("Here is what the team knows about redis")


def test_a2ui_surface_is_drawn_by_the_v2_chat(copilotkit: Page) -> None:
    """The runtime's A2UI middleware (``a2ui: {}``) turns the designer's streamed render call into a surface
    that v2's ``<CopilotChat>`` draws (react-ui's v1 chat draws no activity messages, so no v1 case)."""
    page = copilotkit.open("v2", "a2ui_generative_ui")
    copilotkit.send("show me a checklist for a trip: passport, tickets and charger")
    expect(page.locator('[data-testid="page"]')).to_contain_text("Here it is: Checklist for a trip, drawn above.")
    for text in ("Checklist for a trip", "passport", "tickets", "charger"):  # exact: the surface's own texts
        expect(page.get_by_text(text, exact=True)).to_have_count(1)
