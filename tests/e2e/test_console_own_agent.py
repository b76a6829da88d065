"""Your own agent in the console in two lines (issue 28, item 6), from README's "Serve your own app" block as
written: ``mount_console`` lists the endpoint by itself (no hand-written ``GET /examples``), the page is told not
to ask for threads the server does not keep, the keyless stand-in calls the agent's tool on every message of every
request, and a run's Log opened in the console (``POST /console/replay``) replays through the run machine."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from strands import Agent

from strands_agui import StrandsAgent, add_strands_fastapi_endpoint
from strands_agui.server.console.page import mount_console
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse
from tests.oracles import assert_valid_sse
from tests.support.markdown import PYTHON, blocks
from tests.support.paths import REPO
from tests.support.wire import run_input, sse_events, types

ROOT = REPO
SECTION = "Serve your own app, and put your agent in the console"
SSE = {"Accept": "text/event-stream"}
INSPECT = {"strandsAgui": {"inspect": True}}


@pytest.fixture
def my_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """README's block saved as ``my_app.py`` and imported, as ``strands-agui serve --app my_app:app`` would."""
    for name in ("STRANDS_AGUI_MODEL", "STRANDS_AGUI_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("STRANDS_AGUI_SCRIPTED_DELAY", "0")
    monkeypatch.setenv("STRANDS_AGUI_SESSIONS", str(tmp_path / "sessions"))
    (block,) = [b for b in blocks(ROOT / "README.md") if b.section == SECTION and b.language in PYTHON]
    (tmp_path / "my_app.py").write_text(block.code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("my_app", tmp_path / "my_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "my_app", module)
    spec.loader.exec_module(module)
    return module


def test_the_readme_block_is_two_lines_shorter_than_the_hand_written_listing() -> None:
    section = [b for b in blocks(ROOT / "README.md") if b.section == SECTION]
    code = next(b for b in section if b.language in PYTHON).code
    assert "/examples" not in code.replace("GET /examples what it lists", "")  # no hand-written listing
    assert len(code.splitlines()) <= 22 - 2  # the block was 29 lines with its GET /examples


def test_mount_console_lists_the_endpoint_by_itself(my_app: ModuleType) -> None:
    with TestClient(my_app.app) as client:
        assert client.get("/examples").json() == [{
            "path": "/weather", "name": "weather", "description": "Weather, with one backend tool.",
            "frontendTools": [], "initialState": {}, "prompts": ["Weather in Paris?"], "threads": False,
            "resumable": False}]
        assert client.get("/").status_code == 200


def test_every_message_of_every_request_gets_the_stand_in_calling_the_agents_tool(my_app: ModuleType) -> None:
    with TestClient(my_app.app) as client:
        for n, (prompt, city) in enumerate([("Weather in Paris?", "Paris"), ("And the weather in Rome?", "Rome")]):
            response = client.post("/weather", json=run_input(prompt, run_id=f"run-{n}"), headers=SSE)
            assert_valid_sse(response.content, input=run_input(prompt, run_id=f"run-{n}"))
            events = sse_events(response.text)
            (start,) = [e for e in events if e["type"] == "TOOL_CALL_START"]
            (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
            assert start["toolCallName"] == "get_weather"
            assert json.loads(result["content"]) == {"location": city, "temperature": 21}
            text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
            assert "no more turns" not in text and "STRANDS_AGUI_MODEL" in text
            assert types(events)[-1] == "RUN_FINISHED"


def test_a_message_naming_no_tool_gets_how_to_pick_a_model_and_the_tools(my_app: ModuleType) -> None:
    with TestClient(my_app.app) as client:
        events = sse_events(client.post("/weather", json=run_input("hello"), headers=SSE).text)
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert "TOOL_CALL_START" not in types(events) and "STRANDS_AGUI_MODEL" in text and "get_weather" in text


def test_a_list_script_with_each_message_answers_every_request_from_its_first_turn() -> None:
    """A ScriptedModel shared by every run: played once it answers "(the script has no more turns)";
    ``each_message=True`` plays it for each user message, a tool result continuing it."""
    script = [[ToolUse("get_weather", {"location": "Paris"})], [Text("21 degrees in Paris.")]]
    for each_message, second in ((False, "(the script has no more turns)"), (True, "21 degrees in Paris.")):
        from tests.support.scenarios import get_weather

        app = FastAPI()
        agent = StrandsAgent(Agent(model=ScriptedModel(script, each_message=each_message), tools=[get_weather],
                                   callback_handler=None), name="weather")
        add_strands_fastapi_endpoint(app, agent, "/weather")
        with TestClient(app) as client:
            texts = []
            for n in range(2):
                events = sse_events(client.post("/weather", json=run_input("Weather?", run_id=f"r{n}"),
                                                headers=SSE).text)
                texts.append("".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"))
        assert texts == ["21 degrees in Paris.", second], each_message


def _log_of(client: TestClient) -> str:
    body = {**run_input("Weather in Paris?"), "forwardedProps": INSPECT}
    events = sse_events(client.post("/weather", json=body, headers=SSE).text)
    (log,) = [e["value"]["log"] for e in events if e["type"] == "CUSTOM" and e["name"] == "strands_agui.log"]
    return str(log)


def test_open_a_log_replays_it_through_the_machine_with_its_trace(my_app: ModuleType) -> None:
    with TestClient(my_app.app) as client:
        log = _log_of(client)
        response = client.post("/console/replay", content=log, headers={**SSE, "Content-Type": "application/x-ndjson"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    assert_valid_sse(response.content)
    events = sse_events(response.text)
    names = [e.get("name") for e in events if e["type"] == "CUSTOM"]
    assert "strands_agui.trace" in names and "strands_agui.log" in names
    (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert json.loads(result["content"])["location"] == "Paris" and types(events)[-1] == "RUN_FINISHED"


@pytest.mark.parametrize(("content", "says"), [
    (b"just some notes\n", "invalid JSON"),
    (json.dumps({"strands_agui_trace": 1, "steps": []}, indent=2).encode(), "this is a trace"),
    (bytes(range(256)), "not UTF-8"),
])
def test_open_a_log_refuses_what_is_no_log_naming_why(my_app: ModuleType, content: bytes, says: str) -> None:
    with TestClient(my_app.app) as client:
        response = client.post("/console/replay", content=content)
    assert response.status_code == 422 and says in response.json()["detail"], response.text


def test_open_a_log_refuses_a_body_over_the_limit(my_app: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    from strands_agui.server.console import page

    monkeypatch.setattr(page, "MAX_LOG_BYTES", 1000)
    with TestClient(my_app.app) as client:
        response = client.post("/console/replay", content=b"{}\n" * 400)
    assert response.status_code == 413 and "over 1000 bytes" in response.json()["detail"]


def test_an_apps_own_listing_is_kept(my_app: Any) -> None:
    app = FastAPI()
    app.add_api_route("/examples", lambda: [{"path": "/mine"}], methods=["GET"])
    mount_console(app)
    with TestClient(app) as client:
        assert client.get("/examples").json() == [{"path": "/mine"}]


@pytest.mark.parametrize(("options", "error"), [
    ({"prompts": "Weather in Paris?"}, TypeError),  # one str, not a list of them
    ({"prompts": ["ok", 3]}, TypeError),
    ({"frontend_tools": [{"name": "change_background"}]}, ValueError),  # a Tool needs description and parameters
    ({"initial_state": ["not", "a", "mapping"]}, TypeError),
])
def test_the_console_options_are_checked_when_the_endpoint_is_added(options: dict[str, Any],
                                                                     error: type[Exception]) -> None:
    agent = StrandsAgent(Agent(model=ScriptedModel([[Text("hi")]]), callback_handler=None))
    with pytest.raises(error, match=next(iter(options)) if error is TypeError else "Tool"):
        add_strands_fastapi_endpoint(FastAPI(), agent, "/a", **options)
