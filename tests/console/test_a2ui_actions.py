"""A2UI buttons send their action back (``static/a2ui.js`` + ``console.js``), in the field's wire shape: the
userAction ``{name, surfaceId, sourceComponentId, timestamp, context}`` that ``@a2ui/web_core`` v0.9 builds
(context bindings resolved from the data model) as ``forwardedProps.a2uiAction`` (CopilotKit's renderer), plus
the ``log_a2ui_event`` call and result ``@ag-ui/a2ui-middleware`` appends for it; the example answers the click."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.console.browser import open_example, run_inputs, send, wait_idle
from tests.oracles import assert_valid_sse
from tests.support.live import LiveServer
from tests.support.wire import post_run

pytestmark = pytest.mark.slow  # a browser (Chromium) per module

PROMPT = "A packing checklist: passport, charger and sunscreen"
ITEMS = [{"name": "passport"}, {"name": "charger"}, {"name": "sunscreen"}]


def test_done_on_the_checklist_sends_the_action_and_is_answered(page: Any, examples: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, examples, "/a2ui_generative_ui")
    send(page, PROMPT)
    wait_idle(page)
    done = page.locator('[data-testid="a2ui-surface"] [data-a2ui="Button"]')
    expect(done).to_have_text("Done")
    expect(done).to_be_enabled()
    done.click()
    wait_idle(page)

    body = run_inputs(requests, "/a2ui_generative_ui")[-1]
    action = body["forwardedProps"]["a2uiAction"]["userAction"]
    assert isinstance(action.pop("timestamp"), str)
    assert action == {"name": "checklist_done", "surfaceId": "checklist", "sourceComponentId": "done",
                      "context": {"title": "Packing checklist", "items": ITEMS}}
    assert body["forwardedProps"]["strandsAgui"] == {"inspect": True}
    call, result = body["messages"][-2:]  # what the middleware appends: the call, then its result
    assert call["role"] == "assistant" and call["toolCalls"][0]["function"]["name"] == "log_a2ui_event"
    assert json.loads(call["toolCalls"][0]["function"]["arguments"])["name"] == "checklist_done"
    assert result["role"] == "tool" and result["toolCallId"] == call["toolCalls"][0]["id"]
    assert result["content"].startswith('User performed action "checklist_done" on surface "checklist" '
                                        '(component: done). Context: {')

    answer = "Noted: Packing checklist is done (passport, charger and sunscreen)."
    expect(page.locator("#messages").get_by_text(answer)).to_be_visible()
    assert_valid_sse(post_run(examples.url + "/a2ui_generative_ui", body, timeout=60).text, input=body)


def test_a_button_in_a_list_item_resolves_its_context_from_that_item(page: Any, examples: LiveServer) -> None:
    open_example(page, examples, "/a2ui_generative_ui")
    sent = page.evaluate("""async () => {
        const { renderSurface } = await import('/console/a2ui.js');
        const surface = renderSurface({surfaceId: "errands", final: true,
            data: {who: "Ana", items: [{name: "bread"}, {name: "stamps"}]},
            components: [
                {id: "root", component: "List", children: {componentId: "row", path: "/items"}},
                {id: "row", component: "Row", children: ["label", "pick"]},
                {id: "label", component: "Text", text: {path: "name"}},
                {id: "pick", component: "Button", child: "pick-label",
                 action: {event: {name: "pick", context: {item: {path: "name"}, by: {path: "/who"}, n: 2}}}},
                {id: "pick-label", component: "Text", text: "Pick"},
                {id: "inert", component: "Button", child: "pick-label"}]});
        const seen = [];
        surface.addEventListener("a2ui-action", (e) => seen.push(e.detail));
        surface.querySelectorAll('[data-a2ui="Button"]')[1].click();
        return seen;
    }""")
    assert len(sent) == 1
    assert {k: v for k, v in sent[0].items() if k != "timestamp"} == {
        "name": "pick", "surfaceId": "errands", "sourceComponentId": "pick",
        "context": {"item": "stamps", "by": "Ana", "n": 2}}


def test_book_on_a_fixed_schema_flight_card_sends_that_flight(page: Any, examples: LiveServer) -> None:
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, examples, "/a2ui_fixed_schema")
    send(page, "Find flights from SFO to JFK")
    wait_idle(page)
    books = page.locator('[data-testid="a2ui-surface"] [data-a2ui="Button"]')
    expect(books).to_have_count(3)
    books.nth(1).click()
    wait_idle(page)
    body = run_inputs(requests, "/a2ui_fixed_schema")[-1]
    action = body["forwardedProps"]["a2uiAction"]["userAction"]
    flight = action["context"]
    assert action["name"] == "book_flight" and action["surfaceId"] == "flight-search-results"
    assert action["sourceComponentId"] == "flight-book"
    assert set(flight) == {"flightNumber", "origin", "destination", "price"}
    assert (flight["origin"], flight["destination"]) == ("SFO", "JFK")
    answer = f"Booked flight {flight['flightNumber']} from SFO to JFK for {flight['price']}."
    expect(page.locator("#messages").get_by_text(answer, exact=False)).to_be_visible()
