"""Logs that reproduce: for every example route, the log the console downloads (the inspector's
``strands_agui.log``) names the configuration it was recorded with, and ``strands-agui replay LOG`` (no other
argument) prints the live run's events, ids aside. A configuration that cannot be loaded is an error unless
``--ignore-config``; ``--config`` overrides the header's and accepts a factory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from strands_agui.examples.demo import EXAMPLES
from strands_agui.runtime.recordings import CONFIG_KEY, read_log
from strands_agui.server.console.inspector import LOG_EVENT, TRACE_EVENT
from strands_agui.tooling.cli import main
from tests.support.live import LiveServer
from tests.support.paths import TESTS
from tests.support.servers import served_examples

PROMPTS = {  # a prompt that uses what each example configures (frontend tool, state, plan, pause, swarm)
    "agentic_chat": "please make the background blue",
    "backend_tool_rendering": "what is the weather in Paris?",
    "shared_state": "make it a vegetarian pasta recipe",
    "agentic_generative_ui": "plan a trip: book flights, pack, and then fly",
    "human_in_the_loop": "book me a flight to Oslo",
    "multi_agent": "what do you know about tea?",
    "a2ui_generative_ui": "a packing checklist: passport, charger and sunscreen",
    "agentic_chat_reasoning": "Write a short sonnet about AI.",
    "tool_based_generative_ui": "Generate a haiku about spring.",
    "interrupt": "Schedule a 1:1 with Alice next week to review Q2 goals.",
    "predictive_state_updates": "Please write a story about a pirate named Candy Beard.",
    "agentic_chat_multimodal": "What objects can you identify in this photo?",
    "a2ui_fixed_schema": "Find hotels in downtown Manhattan for next weekend.",
    "a2ui_recovery": "Compare 3 broken hotels with ratings and prices.",
    "background_agents": "write a report on sales",
}
INSPECT = {"strandsAgui": {"inspect": True}}
ID_KEYS = ("id", "runId", "threadId", "parentRunId")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with served_examples(tmp_path_factory.mktemp("sessions"), paced=False) as server:
        yield server


def live_run(served: LiveServer, module: Any) -> list[dict[str, Any]]:
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in module.FRONTEND_TOOLS]
    body = {"threadId": f"parity-{module.NAME}", "runId": "run-1", "tools": tools, "context": [],
            "messages": [{"id": "u1", "role": "user", "content": PROMPTS[module.NAME]}],
            "state": dict(getattr(module, "INITIAL_STATE", {})), "forwardedProps": INSPECT}
    response = httpx.post(f"{served.url}/{module.NAME}", json=body, headers={"Accept": "text/event-stream"},
                          timeout=120)
    assert response.status_code == 200, response.text
    return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]


def without_ids(events: list[dict[str, Any]]) -> list[Any]:
    """The events with every id replaced by the order it first appeared in (the same ids stay equal)."""
    seen: dict[str, str] = {}

    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items() if k != "timestamp"}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if isinstance(value, str) and (key.endswith(("Id", "Ids")) or key in ID_KEYS):
            return seen.setdefault(value, f"id{len(seen)}")
        return value

    return [walk(e) for e in events]


def replayed(log: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]], str]:
    status = main(["replay", str(log), *args])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err


@pytest.mark.parametrize("module", EXAMPLES, ids=[m.NAME for m in EXAMPLES])
def test_the_consoles_log_replays_to_the_live_run(served: LiveServer, module: Any, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    events = live_run(served, module)
    (log_event,) = [e for e in events if e["type"] == "CUSTOM" and e["name"] == LOG_EVENT]
    log = tmp_path / "run.jsonl"
    log.write_text(log_event["value"]["log"], encoding="utf-8")  # what the console's Log button saves
    reference = read_log(log).metadata[CONFIG_KEY]
    assert reference == ("strands_agui.config:StrandsAgentConfig" if module.agent.config == type(module.agent.config)()
                         else f"{module.__name__}:CONFIG")
    status, out, err = replayed(log, capsys=capsys)
    assert status == 0 and err == ""
    live = [e for e in events if e["type"] != "CUSTOM" or e["name"] not in {TRACE_EVENT, LOG_EVENT}]
    assert without_ids(out) == without_ids(live)


def test_a_config_that_cannot_be_loaded_stops_the_replay(served: LiveServer, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from strands_agui.examples import shared_state

    events = live_run(served, shared_state)
    text = next(e for e in events if e["type"] == "CUSTOM" and e["name"] == LOG_EVENT)["value"]["log"]
    log = tmp_path / "moved.jsonl"
    log.write_text(text.replace("strands_agui.examples.shared_state:CONFIG", "gone_app.settings:CONFIG", 1))
    status, out, err = replayed(log, capsys=capsys)
    assert status == 2 and out == []
    (line,) = err.splitlines()
    assert line.startswith("strands-agui: error: ") and "gone_app.settings:CONFIG" in line
    assert "--config" in line and "--ignore-config" in line
    status, out, err = replayed(log, "--ignore-config", capsys=capsys)
    assert status == 0 and err == "" and out[-1]["type"] == "RUN_FINISHED"
    assert "STATE_SNAPSHOT" in [e["type"] for e in out]
    default = [e["type"] for e in out]  # without the config: no state from the tool's arguments or result
    status, out, _ = replayed(log, "--config", "strands_agui.examples.shared_state:CONFIG", capsys=capsys)
    assert status == 0 and [e["type"] for e in out] != default
    live = [e for e in events if e["type"] != "CUSTOM" or e["name"] not in {TRACE_EVENT, LOG_EVENT}]
    assert without_ids(out) == without_ids(live)


def test_config_accepts_a_factory(served: LiveServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from strands_agui.examples import agentic_generative_ui

    events = live_run(served, agentic_generative_ui)
    log = tmp_path / "plan.jsonl"
    log.write_text(next(e for e in events if e["type"] == "CUSTOM" and e["name"] == LOG_EVENT)["value"]["log"])
    status, out, err = replayed(log, "--config", "strands_agui.examples.agentic_generative_ui:build_config",
                                capsys=capsys)
    assert status == 0 and err == ""
    live = [e for e in events if e["type"] != "CUSTOM" or e["name"] not in {TRACE_EVENT, LOG_EVENT}]
    assert without_ids(out) == without_ids(live)
    assert "PredictState" in json.dumps(out) and "STATE_DELTA" in [e["type"] for e in out]
    status, _, err = replayed(log, "--config", "strands_agui.examples.agentic_generative_ui:build_agent",
                              capsys=capsys)
    assert status == 2 and "build_agent() returned a StrandsAgent, not a StrandsAgentConfig" in err
    status, _, err = replayed(log, "--config", "strands_agui.examples.agentic_generative_ui:plan_steps",
                              capsys=capsys)
    assert status == 2 and "plan_steps is a function, not a StrandsAgentConfig" in err


def test_a_log_that_names_no_config_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixture = TESTS / "fixtures" / "plain_text.jsonl"
    assert CONFIG_KEY not in read_log(fixture).metadata
    status, out, err = replayed(fixture, capsys=capsys)
    assert status == 0 and out[-1]["type"] == "RUN_FINISHED"
    assert "names no configuration" in err and "--config" in err
