"""What the console tests do in the page, as a user would."""

from __future__ import annotations

import json
from typing import Any

from tests.support.live import LiveServer


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


def state_json(page: Any) -> Any:
    """The thread's state as the page holds it (the raw JSON under the rendered views)."""
    return json.loads(page.locator('[data-testid="state-json"]').text_content())


def chat_background(page: Any) -> str:
    return page.evaluate("getComputedStyle(document.getElementById('chat')).backgroundColor")
