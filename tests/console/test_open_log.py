"""Your own agent in the console (issue 28, item 6), in Chromium: README's "Serve your own app" block served as
written lists the agent by itself, runs keyless with the stand-in calling its tool, and the page never asks for a
thread the server does not keep (no 404 anywhere); **Open a log** replays a ``.jsonl`` (the page's own Log, or a
recorded fixture) through the same views, with the machine and the inspector, and refuses a Trace file in a line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect

from tests.console.browser import assistant_texts, send, wait_idle
from tests.support.live import LiveServer
from tests.support.markdown import PYTHON, blocks

pytestmark = pytest.mark.slow  # a browser (Chromium) per module

ROOT = Path(__file__).parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SECTION = "Serve your own app, and put your agent in the console"


def _readme_app() -> FastAPI:
    (block,) = [b for b in blocks(ROOT / "README.md") if b.section == SECTION and b.language in PYTHON]
    namespace: dict[str, Any] = {"__name__": "my_app"}
    exec(compile(block.code, "README.md", "exec"), namespace)  # noqa: S102 - README's own block, as written
    return namespace["app"]


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    mp = pytest.MonkeyPatch()
    for name in ("STRANDS_AGUI_MODEL", "STRANDS_AGUI_THREADS"):
        mp.delenv(name, raising=False)
    mp.setenv("STRANDS_AGUI_SCRIPTED_DELAY", "0")
    mp.setenv("STRANDS_AGUI_SESSIONS", str(tmp_path_factory.mktemp("sessions")))
    try:
        with LiveServer(_readme_app()) as served:
            yield served
    finally:
        mp.undo()


def _statuses(page: Any) -> list[tuple[int, str]]:
    seen: list[tuple[int, str]] = []
    page.on("response", lambda response: seen.append((response.status, response.url)))
    return seen


def test_your_agent_runs_keyless_with_its_tool_and_no_404(page: Any, own: LiveServer) -> None:
    seen = _statuses(page)
    page.goto(own.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#example option")).to_have_text(["weather"])
    expect(page.locator('[data-testid="suggestion"]')).to_have_text(["Weather in Paris?"])
    for prompt, city in (("Weather in Paris?", "Paris"), ("And the weather in Rome?", "Rome")):
        send(page, prompt)
        wait_idle(page)
        expect(page.locator('[data-testid="tool-call"][data-tool-name="get_weather"] [data-testid="tool-result"]')
               .last).to_contain_text(city)
    assert not any("no more turns" in text for text in assistant_texts(page))
    page.reload()  # a reload would restore the thread where the server keeps threads: this one does not
    page.wait_for_selector("body[data-ready=true]")
    assert [url for status, url in seen if status >= 400] == []
    assert not [url for _, url in seen if "/threads/" in url]


def test_open_a_log_of_your_own_replays_it_through_the_same_views(page: Any, own: LiveServer,
                                                                  tmp_path: Path) -> None:
    page.goto(own.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    send(page, "Weather in Paris?")
    wait_idle(page)
    with page.expect_download() as download:
        page.click('[data-testid="download-log"]')
    log = tmp_path / "mine.jsonl"
    download.value.save_as(log)

    page.goto(own.url + "/")  # a fresh page: nothing of the run is left in it
    page.wait_for_selector("body[data-ready=true]")
    page.set_input_files('[data-testid="open-log-file"]', str(log))
    expect(page.locator("#example")).to_have_value("log:mine.jsonl")
    wait_idle(page)
    expect(page.locator('[data-role="user"]')).to_contain_text("Weather in Paris?")  # the log's input
    expect(page.locator('[data-testid="tool-call"][data-tool-name="get_weather"] [data-testid="tool-result"]')
           ).to_contain_text("Paris")
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("finished")
    assert page.locator('[data-testid="inspector-step"]').count() > 3
    expect(page.locator('[data-testid="download-log"]')).to_be_enabled()
    send(page, "hello?")  # a replayed log has no agent to talk to
    expect(page.locator('[data-testid="error"]').last).to_contain_text("replayed log")


def test_open_a_recorded_log_and_refuse_a_trace(page: Any, own: LiveServer, tmp_path: Path) -> None:
    page.goto(own.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.set_input_files('[data-testid="open-log-file"]', str(FIXTURES / "backend_tool.jsonl"))
    expect(page.locator("#example")).to_have_value("log:backend_tool.jsonl")
    wait_idle(page)
    expect(page.locator('[data-testid="tool-call"]').first).to_be_visible()
    expect(page.locator('[data-testid="machine-state"]')).to_have_text("finished")

    trace = tmp_path / "trace-run-1.json"
    trace.write_text(json.dumps({"strands_agui_trace": 1, "runId": "run-1", "steps": []}, indent=2),
                     encoding="utf-8")
    page.set_input_files('[data-testid="open-log-file"]', str(trace))
    wait_idle(page)
    expect(page.locator('[data-testid="error"]').last).to_contain_text("this is a trace")
