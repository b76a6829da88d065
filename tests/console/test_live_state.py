"""The machine view shows the state the run is in *while* nothing is sent: a tool that holds the run (a gate the
test opens) keeps the page in ``awaiting_result`` (``end_turn``'s move, sent at once by the inspector's flush),
never in the ``ready`` it was in before the model's turn ended."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect

from strands_agui.core.machine import AWAITING_RESULT
from strands_agui.server.console.page import mount_console
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from tests.console.browser import open_example, send, wait_idle
from tests.support.live import LiveServer
from tests.support.resumable import Gate, gated_agent

pytestmark = pytest.mark.slow  # a browser (Chromium) per module


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def gated_server(gate: Gate) -> Iterator[LiveServer]:
    app = FastAPI()
    add_strands_fastapi_endpoint(app, gated_agent(gate), "/gated", inspect=True)
    mount_console(app)
    with LiveServer(app) as served:
        yield served


def test_the_focused_view_reads_awaiting_result_while_a_tool_runs(page: Any, gated_server: LiveServer,
                                                                   gate: Gate) -> None:
    open_example(page, gated_server, "/gated")
    send(page, "open the gate")
    assert gate.entered.wait(20), "the run never reached its tool"
    try:
        # the tool is running and the stream is quiet: the last move the page knows must be end_turn's
        expect(page.locator('[data-testid="focus-current"]')).to_have_text(AWAITING_RESULT)
        expect(page.locator("#machine-panel")).to_have_attribute("data-state", AWAITING_RESULT)
        expect(page.locator('[data-testid="focus-from"]')).to_contain_text("end_turn")
    finally:
        gate.opened.set()
    wait_idle(page)
    expect(page.locator('[data-testid="focus-current"]')).to_have_text("finished")


def test_streaming_arguments_show_the_characters_their_escapes_stand_for(page: Any, gated_server: LiveServer) -> None:
    """A call's arguments still arriving are no JSON yet: shown as they are, but ``\\u7dd1`` reads ``緑`` (the
    haiku example's Japanese), while an escaped backslash's ``\\\\u`` stays as written."""
    open_example(page, gated_server, "/gated")
    shown = page.evaluate("""async (texts) => {
        const { pretty } = await import('/console/views.js');
        return texts.map(pretty);
    }""", ['{"japanese": ["\\u7dd1\\u306e', '{"path": "C:\\\\u0041', '{"done": true}'])
    assert shown == ['{"japanese": ["緑の', '{"path": "C:\\\\u0041', '{\n  "done": true\n}']
