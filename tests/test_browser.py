"""The chat console (``strands_agui.server.console``) in a real headless Chromium, driven by Playwright.

Two servers, each uvicorn on loopback in a background thread:

* ``scripted``: a small app built here (scripted Strands agents behind real endpoints, plus raw SSE routes
  for state patches and failures), so every assertion is about a known stream;
* ``examples``: the served demo app ``examples.server.build_app()``, when it exists.

Chromium is the Debian ``chromium`` package (``/usr/bin/chromium``, or ``$STRANDS_AGUI_CHROMIUM``); Playwright
only drives it (no ``playwright install``). Without a browser the tests skip locally and fail under ``CI``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from strands import Agent, tool

from strands_agui.runtime.agent import StrandsAgent
from strands_agui.runtime.conversation import conversation
from strands_agui.server.console import mount_console
from strands_agui.tooling.scripted import Fail, ScriptedModel, Text, ToolUse
from tests.live import LiveServer

CHROMIUM = Path(os.environ.get("STRANDS_AGUI_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 20_000
SCREENSHOT = Path("/tmp/console.png")
HAVE_EXAMPLES = importlib.util.find_spec("strands_agui.examples") is not None \
    and importlib.util.find_spec("strands_agui.examples.server") is not None

CHANGE_BACKGROUND = {
    "name": "change_background",
    "description": "Change the page's background colour.",
    "parameters": {"type": "object",
                   "properties": {"background": {"type": "string", "description": "CSS colour"}},
                   "required": ["background"]},
}


def unavailable(reason: str) -> None:
    """Skip locally; under CI a missing browser is a broken environment, so fail."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so the browser tests must run)")
    pytest.skip(reason)


# ---- the scripted app --------------------------------------------------------------------------------------

@tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return json.dumps({"city": city, "conditions": "sunny", "temperature_c": 21})


def chat_agent(input_data: RunAgentInput) -> Agent:
    """Calls change_background with the prompt's last word; after the tool message arrives, says it is done."""
    if input_data.messages and input_data.messages[-1].role == "tool":
        turn = [Text("Done: the background is now changed.", chunks=4)]
    else:
        colour = (conversation(input_data).prompt_text.split() or ["blue"])[-1]
        turn = [Text("Sure, let me change the background colour for you.", chunks=6),
                ToolUse("change_background", {"background": colour}, chunks=4)]
    return Agent(model=ScriptedModel([turn], delay=0.05), callback_handler=None)


def weather_agent(_: RunAgentInput) -> Agent:
    def script(messages: list[dict[str, Any]]) -> list[Any]:
        if any("toolResult" in block for block in messages[-1]["content"]):
            return [Text("It is sunny and 21 degrees in Paris.")]
        return [Text("Let me check the weather."), ToolUse("get_weather", {"city": "Paris"})]
    return Agent(model=ScriptedModel(script, delay=0.02), tools=[get_weather], callback_handler=None)


def failing_agent(_: RunAgentInput) -> Agent:
    return Agent(model=ScriptedModel([[Text("Thinking about it"), Fail(RuntimeError("boom"))]]),
                 callback_handler=None)


def sse(event: dict[str, Any]) -> str:
    return f"data: {json.dumps(event)}\n\n"


def add_endpoint(app: FastAPI, agent: StrandsAgent, path: str) -> None:
    """The project's endpoint when it exists; otherwise the minimal SSE route it stands for."""
    try:
        from strands_agui.server.endpoint import add_strands_fastapi_endpoint
    except ImportError:
        pass
    else:
        add_strands_fastapi_endpoint(app, agent, path)
        return

    async def events(body: dict[str, Any]) -> AsyncIterator[str]:
        async for event in agent.run(RunAgentInput.model_validate(body)):
            yield f"data: {event.model_dump_json(by_alias=True, exclude_none=True)}\n\n"

    async def endpoint(request: Request) -> StreamingResponse:
        return StreamingResponse(events(await request.json()), media_type="text/event-stream")

    app.add_api_route(path, endpoint, methods=["POST"])


def build_scripted_app(received: list[dict[str, Any]]) -> FastAPI:
    app = FastAPI()
    add_endpoint(app, StrandsAgent(chat_agent, name="agentic_chat"), "/agentic_chat")
    add_endpoint(app, StrandsAgent(weather_agent, name="backend_tool_rendering"), "/backend_tool_rendering")
    add_endpoint(app, StrandsAgent(failing_agent, name="failing"), "/failing")

    @app.post("/state_patches")
    async def state_patches(request: Request) -> StreamingResponse:
        """Raw events: a recipe snapshot, then patches streamed one by one (and an SSE comment)."""
        body = await request.json()
        received.append(body)
        thread, run = body["threadId"], body["runId"]

        async def events() -> AsyncIterator[str]:
            yield sse({"type": "RUN_STARTED", "threadId": thread, "runId": run})
            yield ": keep-alive comment\n\n"
            if not body["state"]:
                yield sse({"type": "STATE_SNAPSHOT", "snapshot": {"recipe": {"title": "Soup", "ingredients": []}}})
            for op in ({"op": "add", "path": "/recipe/ingredients/-", "value": "leek"},
                       {"op": "replace", "path": "/recipe/title", "value": "Leek soup"},
                       {"op": "add", "path": "/recipe/servings", "value": len(received) + 1},
                       {"op": "remove", "path": "/recipe/servings"},
                       {"op": "add", "path": "/runs", "value": len(received)}):
                await asyncio.sleep(0.05)
                yield sse({"type": "STATE_DELTA", "delta": [op]})
            yield sse({"type": "RUN_FINISHED", "threadId": thread, "runId": run})

        return StreamingResponse(events(), media_type="text/event-stream")

    @app.post("/endless")
    async def endless(request: Request) -> StreamingResponse:
        """Text that never ends: only the client's Stop ends it."""
        body = await request.json()

        async def events() -> AsyncIterator[str]:
            yield sse({"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]})
            yield sse({"type": "TEXT_MESSAGE_START", "messageId": "endless", "role": "assistant"})
            while True:
                yield sse({"type": "TEXT_MESSAGE_CONTENT", "messageId": "endless", "delta": "and on "})
                await asyncio.sleep(0.05)

        return StreamingResponse(events(), media_type="text/event-stream")

    @app.get("/examples")
    async def examples() -> list[dict[str, Any]]:
        return [
            {"path": "/agentic_chat", "name": "Agentic chat", "description": "Frontend tool: change_background",
             "frontendTools": [CHANGE_BACKGROUND]},
            {"path": "/backend_tool_rendering", "name": "Backend tools", "description": "get_weather",
             "frontendTools": []},
            {"path": "/state_patches", "name": "State patches", "description": "STATE_SNAPSHOT + STATE_DELTA",
             "frontendTools": []},
            {"path": "/failing", "name": "Failing model", "description": "The model raises", "frontendTools": []},
            {"path": "/missing", "name": "Missing route", "description": "HTTP 404", "frontendTools": []},
            {"path": "/endless", "name": "Endless text", "description": "Press Stop", "frontendTools": []},
        ]

    mount_console(app)
    return app


def build_examples_app() -> FastAPI:
    from strands_agui.examples.server import build_app

    app = build_app()
    if not any(getattr(route, "path", None) == "/" for route in app.routes):
        mount_console(app)
    return app


# ---- servers and the browser -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def received() -> list[dict[str, Any]]:
    return []


@pytest.fixture(scope="module")
def scripted(received: list[dict[str, Any]]) -> Iterator[LiveServer]:
    with LiveServer(build_scripted_app(received)) as served:
        yield served


@pytest.fixture(scope="module")
def examples() -> Iterator[LiveServer]:
    if not HAVE_EXAMPLES:
        pytest.skip("examples/server.py does not exist yet")
    with LiveServer(build_examples_app()) as served:
        yield served


@pytest.fixture(params=["scripted", "examples"])
def server(request: pytest.FixtureRequest) -> LiveServer:
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright Python package is missing (pip install playwright)")
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def open_example(page: Any, served: LiveServer, path: str) -> None:
    page.goto(served.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#example", path)


def send(page: Any, text: str) -> None:
    page.fill("#prompt", text)
    page.click("#send")


def wait_idle(page: Any) -> None:
    page.wait_for_selector("body[data-running=false]")


def assistant_texts(page: Any) -> list[str]:
    return [t for t in page.locator('[data-role="assistant"] > [data-testid="message-text"]').all_inner_texts() if t]


def run_inputs(requests: list[Any], path: str) -> list[dict[str, Any]]:
    return [json.loads(r.post_data) for r in requests if r.method == "POST" and r.url.endswith(path)]


# ---- tests -------------------------------------------------------------------------------------------------

def test_frontend_tool_changes_background_and_sends_follow_up(page: Any, server: LiveServer) -> None:
    from playwright.sync_api import expect

    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    open_example(page, server, "/agentic_chat")
    page.evaluate("""() => {  // record every text the first assistant message shows, to see it stream
        window.seen = [];
        new MutationObserver(() => {
            const t = document.querySelector('[data-role="assistant"] > [data-testid="message-text"]');
            if (t && t.textContent && window.seen.at(-1) !== t.textContent) window.seen.push(t.textContent);
        }).observe(document.getElementById('messages'), {subtree: true, childList: true, characterData: true});
    }""")
    send(page, "make the background blue")

    card = page.locator('[data-testid="tool-call"][data-tool-name="change_background"]')
    expect(card).to_be_visible()
    page.wait_for_function("getComputedStyle(document.body).backgroundColor === 'rgb(0, 0, 255)'")
    expect(card.locator('[data-testid="tool-result"]')).to_contain_text("background changed to")
    page.wait_for_function("""() => [...document.querySelectorAll(
        '[data-role="assistant"] > [data-testid="message-text"]')].filter(e => e.textContent).length >= 2""")
    wait_idle(page)

    assert len(assistant_texts(page)) >= 2
    seen = page.evaluate("window.seen")
    assert len(seen) >= 2 and all(b.startswith(a) for a, b in zip(seen, seen[1:], strict=False)), seen
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    expect(page.locator("#status")).to_have_text("idle")

    first, follow_up = run_inputs(requests, "/agentic_chat")[:2]
    assert set(first) == {"threadId", "runId", "messages", "state", "tools", "context", "forwardedProps"}
    assert [t["name"] for t in first["tools"]] == ["change_background"]
    assert first["tools"][0]["parameters"]["required"] == ["background"]
    assert first["messages"][-1]["role"] == "user" and first["messages"][-1]["content"] == "make the background blue"
    assert follow_up["threadId"] == first["threadId"] and follow_up["runId"] != first["runId"]
    tool_message = follow_up["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"].startswith("background changed to")
    assert tool_message["toolCallId"] == card.get_attribute("data-tool-call-id")
    calls = [c for m in follow_up["messages"] for c in m.get("toolCalls") or []]
    assert [c["id"] for c in calls if c["function"]["name"] == "change_background"] == [tool_message["toolCallId"]]
    page.screenshot(path=str(SCREENSHOT), full_page=True)


def test_backend_tool_card_shows_result(page: Any, server: LiveServer) -> None:
    from playwright.sync_api import expect

    open_example(page, server, "/backend_tool_rendering")
    send(page, "weather in Paris")
    card = page.locator('[data-testid="tool-call"][data-tool-name="get_weather"]').first
    expect(card).to_be_visible()
    expect(card.locator('[data-testid="tool-args"]')).to_contain_text("Paris")
    expect(card.locator('[data-testid="tool-result"]')).not_to_be_empty()
    expect(card).to_have_attribute("data-status", "done")
    wait_idle(page)
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    assert assistant_texts(page), "no assistant text was shown"


def test_state_snapshot_and_patches_render_live_per_thread(page: Any, scripted: LiveServer,
                                                           received: list[dict[str, Any]]) -> None:
    from playwright.sync_api import expect

    open_example(page, scripted, "/state_patches")
    state = page.locator("#state")
    send(page, "a recipe please")
    expect(state).to_contain_text('"title": "Soup"')  # the snapshot, before the patches arrive
    wait_idle(page)
    assert json.loads(state.inner_text()) == {"recipe": {"title": "Leek soup", "ingredients": ["leek"]}, "runs": 1}

    page.select_option("#example", "/backend_tool_rendering")  # another example: another thread
    assert json.loads(state.inner_text()) == {}
    page.select_option("#example", "/state_patches")
    assert json.loads(state.inner_text())["recipe"]["title"] == "Leek soup"

    send(page, "more")
    wait_idle(page)
    assert json.loads(state.inner_text()) == {"recipe": {"title": "Leek soup", "ingredients": ["leek", "leek"]},
                                              "runs": 2}
    first, second = received[-2:]
    assert second["threadId"] == first["threadId"]
    assert second["state"] == {"recipe": {"title": "Leek soup", "ingredients": ["leek"]}, "runs": 1}
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == ["a recipe please", "more"]


@pytest.mark.parametrize(("path", "shown"), [
    ("/failing", re.compile(r"RUN_ERROR.*boom")),
    ("/missing", re.compile(r"HTTP 404.*Not Found")),
])
def test_errors_are_shown(page: Any, scripted: LiveServer, path: str, shown: re.Pattern[str]) -> None:
    from playwright.sync_api import expect

    open_example(page, scripted, path)
    send(page, "hello")
    error = page.locator('[data-testid="error"]')
    expect(error).to_be_visible()
    expect(error).to_have_text(shown)
    expect(page.locator("#status")).to_have_attribute("data-state", "error")
    wait_idle(page)
    expect(page.locator("#send")).to_be_enabled()


def test_stop_aborts_the_run(page: Any, scripted: LiveServer) -> None:
    from playwright.sync_api import expect

    open_example(page, scripted, "/endless")
    send(page, "go on")
    expect(page.locator('[data-role="assistant"]')).to_contain_text("and on and on")
    page.click("#stop")
    expect(page.locator('[data-testid="error"]')).to_have_text("Run stopped.")
    expect(page.locator("#status")).to_have_text("stopped")
    expect(page.locator("#send")).to_be_enabled()


@pytest.mark.parametrize(("path", "prompt", "event"), [
    ("/shared_state", "make me a pasta recipe", "STATE_SNAPSHOT"),
    ("/agentic_generative_ui", "plan a trip to Paris", "STATE_DELTA"),
])
def test_examples_with_state_update_the_state_panel(page: Any, examples: LiveServer, path: str, prompt: str,
                                                    event: str) -> None:
    from playwright.sync_api import expect

    open_example(page, examples, path)
    initial = json.loads(page.locator("#state").inner_text())
    send(page, prompt)
    wait_idle(page)
    expect(page.locator('[data-testid="error"]')).to_have_count(0)
    expect(page.locator("#status")).to_have_text("idle")
    assert event in page.locator('[data-testid="event-log"]').text_content()
    state = json.loads(page.locator("#state").inner_text())
    assert state and state != initial


def test_console_page_is_self_contained() -> None:
    """No external resources: the machine (and CI) has no internet."""
    from strands_agui.server.console import console_html

    html = console_html()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "https://" not in html
    for marker in ('id="prompt"', 'id="messages"', 'id="state"', 'id="example"'):
        assert marker in html

