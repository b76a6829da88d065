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
from tests.live import LiveServer

SHOTS: tuple[tuple[str, str, str, bool], ...] = (
    # (file, example path, prompt, expand the inspector's first tool step)
    ("console-recipe.png", "/shared_state", "make a vegetarian pasta recipe, add basil", False),
    ("console-plan.png", "/agentic_generative_ui", "plan a launch: write the post, record a demo, then ship", False),
    ("console-tools.png", "/backend_tool_rendering", "what is the weather in Lisbon?", False),
    ("console-chart.png", "/backend_tool_rendering", "Chart of monthly sales: 12, 19, 7, 24, 15", False),
    ("console-approval.png", "/human_in_the_loop", "book me a flight to Paris", False),
)


def shoot(page: Any, server: LiveServer, out: Path, name: str, path: str, prompt: str, expand: bool) -> None:
    open_example(page, server, path)
    send(page, prompt)
    wait_idle(page)
    page.wait_for_timeout(400)
    if expand:
        page.locator('[data-testid="inspector-step"]').filter(has_text="open_tool_call").locator("summary").click()
    page.screenshot(path=str(out / name))
    print(out / name)


def main(out_dir: str = "docs") -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with LiveServer(build_examples_app()) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        for shot in SHOTS:
            shoot(page, server, out, *shot)
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
