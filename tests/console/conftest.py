"""Servers and the browser for the console's tests (``strands_agui.server.console.page`` in headless Chromium).

Two servers, each uvicorn on loopback in a background thread:

* ``scripted``: ``tests.console.app`` (scripted Strands agents behind real endpoints, plus raw SSE routes);
* ``examples``: the served demo app, ``strands_agui.examples.demo.build_app()`` (unpaced in a module that sets
  ``EXAMPLES_PACED = False``).

Chromium is the Debian ``chromium`` package (``/usr/bin/chromium``, or ``$STRANDS_AGUI_CHROMIUM``); Playwright
only drives it (no ``playwright install``). Without a browser the tests skip locally and fail under ``CI``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.console.app import build_examples_app, build_scripted_app
from tests.support.live import LiveServer
from tests.support.servers import unpace_examples

CHROMIUM = Path(os.environ.get("STRANDS_AGUI_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 20_000


def unavailable(reason: str) -> None:
    """Skip locally; under CI a missing browser is a broken environment, so fail."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so the browser tests must run)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def received() -> list[dict[str, Any]]:
    """The bodies the raw routes of the scripted app received."""
    return []


@pytest.fixture(scope="module")
def scripted(received: list[dict[str, Any]]) -> Iterator[LiveServer]:
    with LiveServer(build_scripted_app(received)) as served:
        yield served


@pytest.fixture(scope="module")
def examples(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    """The examples at their served pace, or, in a module that sets ``EXAMPLES_PACED = False`` (none of its tests
    acts while the scripted model is still speaking), with the scripted model's words at once
    (``tests.support.servers.unpace_examples``; the plan example keeps its 0.4 s between steps)."""
    with pytest.MonkeyPatch.context() as agents:
        if not getattr(request.module, "EXAMPLES_PACED", True):
            unpace_examples(agents)
        app = build_examples_app()
    with LiveServer(app) as served:
        yield served


@pytest.fixture(params=["scripted", "examples"])
def server(request: pytest.FixtureRequest) -> LiveServer:
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="module")  # Playwright's sync API holds an event loop: never across other test modules
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


def page_error(message: Any) -> bool:
    """An error the page logged; a failed request of a run (e.g. a 404 route, shown in the chat) is not one,
    a failed request for one of the page's own files is."""
    if message.type != "error":
        return False
    url = (message.location or {}).get("url", "")
    return not message.text.startswith("Failed to load resource") or "/console/" in url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if page_error(msg) else None)
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"
