"""The decode step (``core/parts.py``): each Strands event shape is one part kind, and the translator's one
dispatch table has exactly one handler per kind."""

from __future__ import annotations

import pytest

from strands_agui import StrandsAgent
from strands_agui.core.facts import RunFacts
from strands_agui.core.parts import IGNORED, KINDS, TWIN, UNMAPPED, decode
from tests.support.scenarios import run_input

TEXT = {"text": "hi"}
TOOL_USE = {"toolUseId": "t1", "name": "f"}

SHAPES = [
    ({"event": {"contentBlockDelta": {"delta": TEXT, "contentBlockIndex": 0}}}, "text", "hi"),
    ({"event": {"contentBlockDelta": {"delta": {"toolUse": {"input": "{"}}}}}, "toolUse", {"input": "{"}),
    ({"event": {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "r"}}}}}, "reasoningContent",
     {"text": "r"}),
    ({"event": {"contentBlockDelta": {"delta": {"citation": {"title": "c"}}}}}, "citation", {"title": "c"}),
    ({"event": {"contentBlockDelta": {"delta": {"newKind": 1}}}}, IGNORED, {"newKind": 1}),
    ({"event": {"contentBlockDelta": {"delta": "not a mapping"}}}, IGNORED, "not a mapping"),
    ({"event": {"contentBlockStart": {"start": {"toolUse": TOOL_USE}}}}, "toolUseStart", TOOL_USE),
    ({"event": {"contentBlockStart": {"start": {}}}}, IGNORED, {"start": {}}),
    ({"event": {"contentBlockStop": {"contentBlockIndex": 0}}}, "contentBlockStop", {"contentBlockIndex": 0}),
    ({"event": {"messageStart": {"role": "assistant"}}}, "messageStart", {"role": "assistant"}),
    ({"event": {"messageStop": {"stopReason": "end_turn"}}}, "messageStop", {"stopReason": "end_turn"}),
    ({"event": {"metadata": {"usage": {}}}}, "metadata", {"usage": {}}),
    ({"event": {"futureChunk": {}}}, IGNORED, {"futureChunk": {}}),
    ({"event": "not a mapping"}, IGNORED, "not a mapping"),
    ({"data": "hi", "delta": TEXT, "user_key": 1}, TWIN, None),
    ({"type": "tool_stream", "tool_stream_event": {}}, "tool_stream", None),
    ({"type": "multiagent_node_start", "node_id": "a"}, "multiagent_node_start", None),
    ({"type": "future_type", "x": 1}, UNMAPPED, None),
    ({"type": {"unhashable": 1}, "x": 1}, UNMAPPED, None),
    ({"message": {"role": "assistant", "content": []}}, "message", None),
    ({"result": object()}, "result", None),
    ({"event_loop_throttled_delay": 3, "user_key": 1}, "event_loop_throttled_delay", None),
    ({"init_event_loop": True}, UNMAPPED, None),
    ({"a": 1, "b": 2}, UNMAPPED, None),
]


@pytest.mark.parametrize("event,kind,payload", SHAPES, ids=[f"{i}-{s[1]}" for i, s in enumerate(SHAPES)])
def test_each_shape_decodes_once_into_its_part(event, kind, payload) -> None:  # type: ignore[no-untyped-def]
    decoded, value = decode(event)
    assert decoded == kind and decoded in KINDS
    assert value == (payload if payload is not None else event)


def test_the_dispatch_table_has_one_handler_per_kind() -> None:
    opening = StrandsAgent(lambda _: None).opening(run_input())  # type: ignore[arg-type,return-value]
    opening.start()
    translator = opening.translator(RunFacts())
    assert set(translator.parts) == set(KINDS) and len(KINDS) == len(set(KINDS))
    assert translator.handle({"event": {"futureChunk": {}}}) == []
    assert translator.handle({"data": "x", "delta": TEXT}) == []
