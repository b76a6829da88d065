"""Take the docs' screenshots of the console (``make screenshots``): the served examples in headless Chromium.

    python -m tests.console.screenshots [OUT_DIR]      # default: docs/
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.console.app import build_examples_app
from tests.console.browser import open_example, send, wait_idle
from tests.console.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.support.live import LiveServer

SHOTS: tuple[tuple[str, str, str, bool], ...] = (
    # (file, example path, prompt, expand the inspector's first tool step)
    ("console-recipe.png", "/shared_state", "make a vegetarian pasta recipe, add basil", False),
    ("console-plan.png", "/agentic_generative_ui", "plan a launch: write the post, record a demo, then ship", False),
    ("console-tools.png", "/backend_tool_rendering", "what is the weather in Lisbon?", False),
    ("console-chart.png", "/backend_tool_rendering", "Chart of monthly sales: 12, 19, 7, 24, 15", False),
    ("console-approval.png", "/human_in_the_loop", "book me a flight to Paris", False),
    ("console-a2ui.png", "/a2ui_generative_ui", "A packing checklist: passport, charger and sunscreen", False),
)
WIDTHS = ((390, 844), (1024, 768), (1440, 900))
STOPPED_PROMPT = ("/agentic_generative_ui", "Help me launch a podcast")  # a plan under way, then Stop


def shoot(page: Any, server: LiveServer, out: Path, name: str, path: str, prompt: str, expand: bool) -> None:
    open_example(page, server, path)
    send(page, prompt)
    wait_idle(page)
    page.wait_for_timeout(400)
    if expand:
        page.locator('[data-testid="inspector-step"]').filter(has_text="open_tool_call").locator("summary").click()
    page.screenshot(path=str(out / name))
    print(out / name)


def shoot_run_and_stop(page: Any, server: LiveServer, out: Path, width: int) -> None:
    """The plan example at ``width``: mid-run (a step done, the next under way), then after Stop."""
    path, prompt = STOPPED_PROMPT
    open_example(page, server, path)
    send(page, prompt)
    page.locator('[data-testid="plan-step"][data-status="completed"]').first.wait_for()
    whole = width < 900  # one column: the whole page, every pane
    page.screenshot(path=str(out / f"console-{width}-running.png"), full_page=whole)
    page.click("#stop")
    wait_idle(page)
    page.wait_for_timeout(300)
    page.screenshot(path=str(out / f"console-{width}-stopped.png"), full_page=whole)
    print(out / f"console-{width}-running.png", out / f"console-{width}-stopped.png")


def main(out_dir: str = "docs") -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with LiveServer(build_examples_app()) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        for shot in SHOTS:
            shoot(page, server, out, *shot)
        page.close()
        for width, height in WIDTHS:
            sized = browser.new_page(viewport={"width": width, "height": height})
            shoot_run_and_stop(sized, server, out, width)
            sized.close()
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
