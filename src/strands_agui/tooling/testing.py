"""Helpers for testing agents served with strands-agui: replay a recorded log and compare with a golden file.

::

    from strands_agui.tooling.testing import assert_replay_matches

    def test_weather_run():
        assert_replay_matches("tests/logs/weather.jsonl", "tests/golden/weather.jsonl", config=MY_CONFIG)

Ids are compared as relations: every id is replaced by ``$1``, ``$2`` ... in order of first appearance, so a
golden file stays valid while uuids change. Set ``STRANDS_AGUI_UPDATE_GOLDEN=1`` to (re)write golden files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent

from .replay import LogSource, replay_to_list
from .scripted import Fail, Reasoning, ScriptedModel, Text, ToolUse

ID_KEYS = frozenset({"messageId", "toolCallId", "parentMessageId", "entityId", "id", "subagentRunId",
                     "parentSubagentRunId", "parentToolCallId"})

__all__ = ["ScriptedModel", "Text", "ToolUse", "Reasoning", "Fail", "dump_events", "normalize_ids",
           "assert_replay_matches", "assert_matches_golden", "write_golden"]


def dump_events(events: Iterable[BaseEvent | dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as the wire carries them: camelCase dicts without unset fields."""
    return [e if isinstance(e, dict) else e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def normalize_ids(events: Iterable[BaseEvent | dict[str, Any]]) -> list[dict[str, Any]]:
    """Replace every id by ``$n`` (n = order of first appearance), keeping which ids are equal."""
    names: dict[str, str] = {}

    def walk(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if key in ID_KEYS and isinstance(value, str):
            return names.setdefault(value, f"${len(names) + 1}")
        return value

    return [walk(event) for event in dump_events(events)]


def write_golden(events: Iterable[BaseEvent | dict[str, Any]], golden: str | os.PathLike[str]) -> None:
    """Write ``events`` (ids as relations) as the JSON Lines golden file ``golden``, its directory made."""
    path = Path(golden)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in normalize_ids(events)), encoding="utf-8")


def assert_matches_golden(events: Iterable[BaseEvent | dict[str, Any]], golden: str | os.PathLike[str]) -> None:
    """Compare events (ids as relations) with a JSON Lines golden file."""
    actual = normalize_ids(events)
    path = Path(golden)
    if os.environ.get("STRANDS_AGUI_UPDATE_GOLDEN") == "1" or not path.exists():
        write_golden(actual, path)
        if os.environ.get("STRANDS_AGUI_UPDATE_GOLDEN") != "1":
            raise AssertionError(f"golden file {path} did not exist; it was written: review and commit it")
        return
    expected = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"event {index} differs from {path}:\n  expected {want}\n  actual   {got}"
    assert len(actual) == len(expected), f"{len(actual)} events, golden {path} has {len(expected)}"


def assert_replay_matches(log: LogSource, golden: str | os.PathLike[str], **replay_kwargs: Any) -> None:
    """Replay ``log`` against ``golden`` (``config=``, ``input_data=`` as for ``replay``)."""
    assert_matches_golden(replay_to_list(log, **replay_kwargs), golden)
