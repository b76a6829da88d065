"""Recording real Strands runs (scripted model), reading the logs back and replaying them."""

from __future__ import annotations

import enum
import io
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, UserMessage
from pydantic import BaseModel
from strands import Agent, tool
from strands.interrupt import Interrupt
from strands.multiagent.base import MultiAgentResult, NodeResult, Status

from strands_agui.runtime.recordings import (
    LIVE_KEYS,
    LOG_VERSION,
    IncompleteLog,
    LogFormatError,
    RecordedRun,
    Recorder,
    ReplayedException,
    decode_event,
    read_log,
    record_stream,
    replay_events,
    sanitize_event,
    write_log,
)
from strands_agui.tooling.scripted import Fail, ScriptedModel, Text, ToolUse, Turn

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


@tool
def get_weather(city: str) -> str:
    """Report the weather of a city."""
    return f"sunny in {city}"


@tool
def snapshot() -> dict:
    """Return a picture."""
    return {"status": "success", "content": [{"image": {"format": "png", "source": {"bytes": PNG}}}]}


def weather_agent() -> Agent:
    script: list[Turn] = [[Text("Let me check."), ToolUse("get_weather", {"city": "Paris"}, chunks=4)],
              [Text("It is sunny in Paris.")]]
    return Agent(model=ScriptedModel(script), tools=[get_weather], callback_handler=None)


def run_input() -> RunAgentInput:
    return RunAgentInput(thread_id="t1", run_id="r1", state={}, tools=[], context=[], forwarded_props={},
                         messages=[UserMessage(id="m1", role="user", content="Weather in Paris?")])


async def record(agent: Agent, prompt: str, sink: io.StringIO) -> tuple[list[Any], list[dict[str, Any]]]:
    """Run ``agent`` through ``record_stream``; return the live events and their copies made on receipt."""
    live: list[Any] = []
    copies: list[dict[str, Any]] = []
    with Recorder(sink, input_data=run_input(), metadata={"case": "test"}) as recorder:
        async for event in record_stream(agent.stream_async(prompt), recorder):
            live.append(event)
            copies.append(sanitize_event(event))
    return live, copies


def walk(obj: Any) -> Iterator[Any]:
    """Every value nested in ``obj``, ``obj`` included."""
    yield obj
    children = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else ()
    for child in children:
        yield from walk(child)


async def collect(stream: AsyncIterator[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event async for event in stream]


# ---------------------------------------------------------------------------------------------- real runs


async def test_text_tool_text_run_round_trips() -> None:
    sink = io.StringIO()
    live, copies = await record(weather_agent(), "Weather in Paris?", sink)
    lines = sink.getvalue().splitlines()
    parsed = [json.loads(line) for line in lines]
    assert parsed[0]["strands_agui_log"] == LOG_VERSION
    assert parsed[0]["input"]["threadId"] == "t1"

    run = read_log(lines)
    assert run.exception is None
    assert run.metadata == {"case": "test"}
    assert run.input_data == run_input()
    assert list(run.events) == parsed[1:-1] == copies
    assert parsed[-1] == {"__end__": {"events": len(live)}}
    assert len(run.events) == len(live)
    assert "result" in run.events[-1]
    for value in walk(list(run.events)):
        assert not (isinstance(value, dict) and (LIVE_KEYS & value.keys() or "__live__" in value))

    cycle_ids = [e["event_loop_cycle_id"] for e in run.events if "event_loop_cycle_id" in e]
    assert cycle_ids and all(isinstance(c, str) and uuid.UUID(c) for c in cycle_ids)
    assert len(set(cycle_ids)) == 2


async def test_tool_input_is_recorded_as_seen_at_receipt() -> None:
    sink = io.StringIO()
    live, _ = await record(weather_agent(), "Weather in Paris?", sink)
    recorded = [e["current_tool_use"]["input"] for e in read_log(sink.getvalue().splitlines()).events
                if e.get("type") == "tool_use_stream"]
    assert len(recorded) == 4
    assert all(isinstance(partial, str) for partial in recorded)
    assert all(later.startswith(earlier) for earlier, later in zip(recorded, recorded[1:], strict=False))
    assert recorded[-1] == json.dumps({"city": "Paris"})
    # Strands later replaced the shared current_tool_use input by the parsed dict in the live events.
    assert [e["current_tool_use"]["input"] for e in live if e.get("type") == "tool_use_stream"][0] == {
        "city": "Paris"}


async def test_tool_result_bytes_become_the_marker_and_decode_back() -> None:
    agent = Agent(model=ScriptedModel([[ToolUse("snapshot", {})], [Text("done")]]), tools=[snapshot],
                  callback_handler=None)
    sink = io.StringIO()
    await record(agent, "Show me", sink)
    run = read_log(io.StringIO(sink.getvalue()))
    (tool_message,) = [e for e in run.events if e.get("message", {}).get("role") == "user"]
    source = tool_message["message"]["content"][0]["toolResult"]["content"][0]["image"]["source"]
    assert source["bytes"]["__bytes_encoded__"] is True
    decoded = decode_event(tool_message)
    assert decoded["message"]["content"][0]["toolResult"]["content"][0]["image"]["source"]["bytes"] == PNG
    assert source["bytes"]["__bytes_encoded__"] is True  # decode_event copies


async def test_failing_model_logs_the_exception_and_replay_raises_it() -> None:
    agent = Agent(model=ScriptedModel([[Text("Hello there"), Fail(RuntimeError("boom"))]]),
                  callback_handler=None)
    sink = io.StringIO()
    copies: list[dict[str, Any]] = []
    with Recorder(sink) as recorder, pytest.raises(RuntimeError, match="boom"):
        async for event in record_stream(agent.stream_async("hi"), recorder):
            copies.append(sanitize_event(event))
    *_, last, end = map(json.loads, sink.getvalue().splitlines())
    assert last == {"__exception__": {"type": "RuntimeError", "message": "boom"}}
    assert end == {"__end__": {"events": len(copies)}}

    run = read_log(sink.getvalue().splitlines())
    assert run.exception == {"type": "RuntimeError", "message": "boom"}
    assert copies[-1] == {"force_stop": True, "force_stop_reason": "boom"}
    replayed: list[dict[str, Any]] = []
    with pytest.raises(ReplayedException) as info:
        async for event in replay_events(run):
            replayed.append(event)
    assert replayed == copies
    assert (info.value.type_name, info.value.message, str(info.value)) == ("RuntimeError", "boom", "boom")


async def test_replay_yields_the_sanitized_live_events_as_fresh_copies(tmp_path: Any) -> None:
    path = tmp_path / "run.jsonl"
    live: list[dict[str, Any]] = []
    with Recorder(path, metadata={"n": 1}) as recorder:
        async for event in record_stream(weather_agent().stream_async("Weather?"), recorder):
            live.append(sanitize_event(event))
    run = read_log(path)
    first = await collect(replay_events(run))
    assert first == live
    first[0]["mutated"] = True
    assert await collect(replay_events(run)) == live


async def test_agent_as_tool_nested_events_lose_live_keys() -> None:
    inner = Agent(name="helper", model=ScriptedModel([[Text("inner answer")]]), callback_handler=None)
    outer = Agent(model=ScriptedModel([[ToolUse("helper", {"input": "go"})], [Text("outer done")]]),
                  tools=[inner.as_tool()], callback_handler=None)
    sink = io.StringIO()
    await record(outer, "delegate", sink)
    run = read_log(sink.getvalue().splitlines())
    nested = [e["tool_stream_event"]["data"] for e in run.events if e.get("type") == "tool_stream"]
    assert any("data" in d for d in nested)
    for value in walk(list(run.events)):
        assert not (isinstance(value, dict) and LIVE_KEYS & value.keys())


# ---------------------------------------------------------------------------------------------- sanitize


class Color(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: int


@dataclass
class Box:
    label: str
    color: Color
    _hidden: int = 0


class Opaque:
    pass


def test_sanitize_event_handles_every_kind_of_value() -> None:
    ident = uuid.uuid4()
    event = {
        "agent": Opaque(), "messages": [], "x": (1, (2, b"\x00")), "id": ident, "color": Color.RED,
        "point": Point(x=1), "error": ValueError("bad"), "box": Box("b", Color.RED),
        "interrupt": Interrupt(id="i1", name="ask", reason={"q": 1}), "opaque": Opaque(), "keys": {1: "one"},
    }
    assert sanitize_event(event) == {
        "x": [1, [2, {"__bytes_encoded__": True, "data": "AA=="}]], "id": str(ident), "color": "red",
        "point": {"x": 1}, "error": {"__exception__": {"type": "ValueError", "message": "bad"}},
        "box": {"label": "b", "color": "red"},
        "interrupt": {"id": "i1", "name": "ask", "reason": {"q": 1}, "response": None},
        "opaque": {"__live__": "Opaque"}, "keys": {"1": "one"},
    }


def test_sanitize_event_deep_copies() -> None:
    shared: dict[str, Any] = {"toolUseId": "t", "input": "{\"a"}
    event = {"type": "tool_use_stream", "current_tool_use": shared, "delta": {"toolUse": {"input": "{\"a"}}}
    clean = sanitize_event(event)
    shared["input"] = {"a": 1}
    assert clean["current_tool_use"]["input"] == "{\"a"


def test_sanitize_event_drops_live_keys_in_nested_events() -> None:
    inner = {"data": "x", "agent": Opaque(), "model": Opaque(), "event_loop_cycle_id": uuid.UUID(int=1)}
    tool_stream = {"type": "tool_stream", "tool_stream_event": {"tool_use": {"toolUseId": "t"},
                                                                 "data": inner}}
    nested = {"type": "tool_stream", "tool_stream_event": {"tool_use": {}, "data": tool_stream}}
    node = {"type": "multiagent_node_stream", "node_id": "n", "event": nested}
    clean = sanitize_event(node)
    deepest = clean["event"]["tool_stream_event"]["data"]["tool_stream_event"]["data"]
    assert deepest == {"data": "x", "event_loop_cycle_id": str(uuid.UUID(int=1))}


@dataclass(eq=False)
class Node:
    name: str
    peers: list[Node]


def test_sanitize_event_survives_cycles() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    a, b = Node("a", []), Node("b", [])
    a.peers.append(b)
    b.peers.append(a)
    clean = sanitize_event({"request_state": loop, "node": a, "type": {"unhashable": True}})
    json.dumps(clean)
    assert clean["node"] == {"name": "a", "peers": [{"name": "b", "peers": [{"__live__": "Node"}]}]}


def test_sanitize_event_serializes_multiagent_results() -> None:
    failed = NodeResult(result=RuntimeError("x"), status=Status.FAILED)
    clean = sanitize_event({"type": "multiagent_result", "result": MultiAgentResult(
        status=Status.FAILED, results={"a": failed})})
    assert clean["result"]["status"] == "failed"
    assert clean["result"]["results"]["a"]["status"] == "failed"
    assert clean["result"]["results"]["a"]["result"] == {"__exception__": {"type": "RuntimeError",
                                                                           "message": "x"}}


# ---------------------------------------------------------------------------------------------- read_log


@pytest.mark.parametrize(
    ("lines", "fragment"),
    [
        (['{"strands_agui_log": 1}', "{not json"], "line 2: invalid JSON"),
        (['{"start": true}', '{"strands_agui_log": 1}'], "line 2: header"),
        (['{"__exception__": {"type": "E", "message": "m"}}', '{"start": true}'], "line 2: content after"),
        (['{"strands_agui_log": 2}'], "line 1: unsupported log version 2"),
        (['{"strands_agui_log": 1}', "[1, 2]"], "line 2: expected a JSON object"),
        (['{"__exception__": "boom"}'], "line 1: __exception__"),
        (['{"strands_agui_log": 1}', '{"start": true}', '{"__end__": {"events": 2}}'], "lines are missing"),
        (['{"strands_agui_log": 1}', '{"__end__": {"events": 0}}', '{"start": true}'], "line 3: content after"),
        (['{"strands_agui_log": 1}', '{"__end__": 0}'], "line 2: __end__ must be"),
        (["", "  "], "the log is empty"),
    ],
)
def test_read_log_rejects_malformed_logs(lines: list[str], fragment: str) -> None:
    with pytest.raises(LogFormatError, match=fragment):
        read_log(lines, partial=True)


@pytest.mark.parametrize(
    ("lines", "fragment"),
    [
        (['{"strands_agui_log": 1}', '{"start": true}'], "stops after 2 line.s. without its __end__ marker"),
        (['{"start": true}', '{"__end__": {"events": 1}}'], "line 1 is not a strands-agui log header"),
    ],
)
def test_a_log_cut_short_or_without_header_is_read_only_on_purpose(lines: list[str], fragment: str) -> None:
    with pytest.raises(IncompleteLog, match=fragment):
        read_log(lines)
    assert read_log(lines, partial=True).events == ({"start": True},)


def test_binary_garbage_is_not_a_log(tmp_path: Any) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(LogFormatError, match="not UTF-8 text"):
        read_log(path, partial=True)


def test_read_log_skips_blank_lines_and_partial_accepts_headerless_logs() -> None:
    run = read_log(["", '{"start": true}', "   ", '{"data": "é"}', ""], partial=True)
    assert run == RecordedRun(events=({"start": True}, {"data": "é"}))
    assert run.input_data is None and run.metadata == {}


# ---------------------------------------------------------------------------------------------- writing


def test_write_log_and_recorder_guards(tmp_path: Any) -> None:
    path = tmp_path / "log.jsonl"
    write_log(path, [{"data": "é"}], metadata={"m": 1}, exception=KeyError("k"))
    text = path.read_text(encoding="utf-8")
    assert '"data":"é"' in text
    run = read_log(path)
    assert run.exception == {"type": "KeyError", "message": "'k'"}
    recorder = Recorder(io.StringIO())
    recorder.exception(RuntimeError("x"))
    with pytest.raises(RuntimeError, match="already ended"):
        recorder.event({"start": True})
    recorder.close()
    with pytest.raises(RuntimeError, match="closed"):
        recorder.event({"start": True})


async def test_record_stream_closes_the_source_on_early_exit() -> None:
    closed: list[bool] = []

    async def source() -> AsyncIterator[dict[str, Any]]:
        try:
            for n in range(10):
                yield {"n": n}
        finally:
            closed.append(True)

    sink = io.StringIO()
    recorder = Recorder(sink)
    tee = record_stream(source(), recorder)
    assert await anext(tee) == {"n": 0}
    await tee.aclose()
    assert closed == [True]
    recorder.close()
    run = read_log(sink.getvalue().splitlines())
    assert run.events == ({"n": 0},) and run.exception is None
