"""The AG-UI protobuf framing (``server/transport/proto``): the schema is the one ``@ag-ui/proto`` 1.0.0 decodes, the
generated code is what the schema compiles to, every event survives the trip, and the endpoint answers
``Accept: application/vnd.ag-ui.event+proto`` with frames the official client reads as it reads our SSE."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import HealthCheck, given, settings

from strands_agui.server.request.negotiation import preferred_media_type, produced_media_types
from strands_agui.server.transport.proto import MAX_FRAME_BYTES, PROTO_MEDIA_TYPE, decode_frames, proto_frame
from strands_agui.server.transport.proto.agui_v1 import events_pb2, patch_pb2, types_pb2
from strands_agui.server.transport.proto.codec import decode, encode
from strands_agui.tooling.testing import dump_events
from tests.oracles import CLIENT_DIR, assert_valid_proto
from tests.support.fuzz import check, proto_carries
from tests.support.paths import REPO
from tests.support.replays import NAMES, replayed
from tests.support.strands_events import FuzzRun, fuzz_runs
from tests.support.wire import post_sse, run_input

SSE = "text/event-stream"
PROTO_HEADERS = {"Accept": PROTO_MEDIA_TYPE, "Content-Type": "application/json"}
SCHEMA = REPO / "src" / "strands_agui" / "server" / "transport" / "proto" / "agui_v1"

# ----------------------------------------------------------------------------------------- the schema


def _npm_sources() -> dict[str, str]:
    """``@ag-ui/proto`` 1.0.0's generated TypeScript, from the source map it ships."""
    source_map = CLIENT_DIR / "node_modules" / "@ag-ui" / "proto" / "dist" / "index.js.map"
    data = json.loads(source_map.read_text())
    return {Path(name).name: text for name, text in zip(data["sources"], data["sourcesContent"], strict=True)
            if "/generated/" in name and "google" not in name}


_ENCODER = re.compile(r"export const (\w+): MessageFns<\w+> = \{\n  encode\((.*?)\n    return writer;", re.S)
_STATEMENT = re.compile(r"\n    (?=if \(|for \(|Object\.entries)")
_SCALARS = {FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BOOL: "bool",
            FieldDescriptor.TYPE_INT64: "int64", FieldDescriptor.TYPE_ENUM: "int32"}


def _ts_field(statement: str) -> tuple[str, tuple[int, str, str]]:
    """``(jsonName, (number, type, label))`` of one field write in a ts-proto ``encode``."""
    tag = int(re.search(r"writer\.uint32\((\d+)\)", statement).group(1))  # type: ignore[union-attr]
    name = re.search(r"message\.(\w+)", statement).group(1)  # type: ignore[union-attr]
    if statement.startswith(("for (", "Object.entries")):
        label = "repeated"
    else:
        label = "optional" if re.match(r"if \(message\.\w+ !== undefined\)", statement) else "implicit"
    wrapped = re.search(r"(Struct|Value)\.encode\(\1\.wrap", statement)
    message = re.search(r"(\w+)\.encode\(", statement)
    if wrapped:
        kind = wrapped.group(1)
    elif message:
        kind = message.group(1)
    else:
        kind = re.findall(r"\)\.(\w+)\(", statement)[-1]
    return name, (tag >> 3, kind, label)


def npm_schema() -> dict[str, dict[str, tuple[int, str, str]]]:
    """Every message's fields as the npm package's generated ``encode`` functions write them."""
    messages = {}
    for source in _npm_sources().values():
        for name, body in _ENCODER.findall(source):
            statements = [s for s in _STATEMENT.split(body) if "writer.uint32(" in s]
            messages[name] = dict(map(_ts_field, statements))
    return messages


def _pb_name(message: Any) -> str:
    """ts-proto's name for a message: ``ag_ui.ToolCall.Function`` -> ``ToolCall_Function``."""
    return str(message.full_name).removeprefix("ag_ui.").removeprefix("google.protobuf.").replace(".", "_")


def _pb_field(field: FieldDescriptor) -> tuple[int, str, str]:
    if field.is_repeated:
        label = "repeated"
    else:
        label = "optional" if field.has_presence else "implicit"
    kind = _pb_name(field.message_type) if field.message_type else _SCALARS[field.type]
    return field.number, kind, label


def compiled_schema() -> dict[str, dict[str, tuple[int, str, str]]]:
    messages = {}
    for module in (events_pb2, types_pb2, patch_pb2):
        pending = list(module.DESCRIPTOR.message_types_by_name.values())
        while pending:
            message = pending.pop()
            pending.extend(message.nested_types)
            messages[_pb_name(message)] = {f.camelcase_name: _pb_field(f) for f in message.fields}
    return messages


def test_schema_matches_the_npm_package_field_by_field() -> None:
    npm, ours = npm_schema(), compiled_schema()
    assert len(npm) == 53
    assert ours == npm


def test_enums_match_the_npm_package() -> None:
    sources = "".join(_npm_sources().values())
    for enum in (events_pb2.EventType, patch_pb2.JsonPatchOperationType):
        body = re.search(rf"export enum {enum.DESCRIPTOR.name} \{{(.*?)\}}", sources, re.S).group(1)  # type: ignore[union-attr]
        npm = {name: int(number) for name, number in re.findall(r"(\w+) = (-?\d+)", body) if name != "UNRECOGNIZED"}
        assert dict(enum.items()) == npm


def test_generated_code_is_what_the_schema_compiles_to(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools is in the dev extra")
    from strands_agui.server.transport.proto.compile import compile_schema

    written = compile_schema(tmp_path)
    assert len(written) == 6
    for path in written:
        assert path.read_text() == (SCHEMA / path.name).read_text(), f"{path.name} is stale: run `make proto`"


# ----------------------------------------------------------------------------------------- the codec


def test_every_golden_event_survives_the_round_trip() -> None:
    count = 0
    for name in NAMES:
        for event in dump_events(replayed(name)):
            assert decode(encode(event)) == event, event["type"]
            count += 1
    assert count > 700


@pytest.mark.parametrize("event", [
    {"type": "CUSTOM", "name": "n", "value": None},
    {"type": "STATE_SNAPSHOT", "snapshot": {"a": [1, 2.5, None, {"b": True}], "s": "x"}},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
     "outcome": {"type": "success", "pendingToolCallIds": ["c1"]},
     "usage": [{"provider": "bedrock", "inputTokens": 3, "outputTokens": 4, "cacheWriteInputTokens": 1}]},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "cancelled"}},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
     "outcome": {"type": "interrupt", "interrupts": [{"id": "i", "reason": "tool_call", "toolCallId": "c",
                                                      "responseSchema": {"type": "object"}}]}},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "s", "outcome": {"type": "suspended", "interruptIds": ["i"]}},
    {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c",
     "content": [{"type": "text", "text": "hi"},
                 {"type": "image", "source": {"type": "data", "value": "AAAA", "mimeType": "image/png"}}]},
    {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": ""},
    {"type": "ACTIVITY_DELTA", "messageId": "m", "activityType": "progress",
     "patch": [{"op": "replace", "path": "/done", "value": 2}]},
    {"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "a", "role": "activity", "activityType": "progress", "content": {"done": 1}},
        {"id": "r", "role": "reasoning", "content": "", "encryptedValue": "sig"},
        {"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}]}]},
    {"type": "TEXT_MESSAGE_END", "messageId": "m", "timestamp": 1732000000000,
     "metadata": {"citations": [{"title": "t"}]}, "rawEvent": {"k": [1]}},
])
def test_reshaped_events_come_back_as_they_were_sent(event: dict[str, Any]) -> None:
    assert decode(encode(event)) == event


def test_a_field_the_schema_has_no_place_for_is_an_error_not_a_silent_drop() -> None:
    with pytest.raises(ValueError, match="TextMessageStartEvent has no field 'mood'"):
        encode({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "mood": "happy"})


def test_frames_are_length_prefixed_events() -> None:
    from ag_ui.core import TextMessageContentEvent

    frame = proto_frame(TextMessageContentEvent(message_id="m", delta="hé"))
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    assert decode_frames(frame * 2) == [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hé"}] * 2
    with pytest.raises(ValueError, match="mid-frame"):
        decode_frames(frame + frame[:3])


def test_an_event_larger_than_the_client_reads_is_refused() -> None:
    from ag_ui.core import StateSnapshotEvent

    with pytest.raises(ValueError, match="reads at most"):
        proto_frame(StateSnapshotEvent(snapshot={"blob": "x" * MAX_FRAME_BYTES}))


# ----------------------------------------------------------------------------------------- negotiation


@pytest.mark.parametrize(("accept", "chosen"), [
    (None, SSE),
    ("*/*", SSE),
    (f"{SSE}, {PROTO_MEDIA_TYPE}", SSE),  # a tie goes to SSE
    (f"{PROTO_MEDIA_TYPE}, {SSE}", SSE),
    (PROTO_MEDIA_TYPE, PROTO_MEDIA_TYPE),
    (f"{SSE};q=0.5, {PROTO_MEDIA_TYPE}", PROTO_MEDIA_TYPE),
    (f"{PROTO_MEDIA_TYPE};q=0.4, {SSE};q=0.3", PROTO_MEDIA_TYPE),
    ("application/*", PROTO_MEDIA_TYPE),
    (f"{SSE};q=0, */*", PROTO_MEDIA_TYPE),
    (f"{PROTO_MEDIA_TYPE};q=0, */*", SSE),
    ("application/json", None),
])
def test_accept_picks_the_framing_by_quality(accept: str | None, chosen: str | None) -> None:
    assert produced_media_types() == (SSE, PROTO_MEDIA_TYPE)
    assert preferred_media_type(accept, produced_media_types()) == chosen


def test_a_proto_request_gets_the_proto_framing(echo_server) -> None:
    response = post_sse(echo_server.url + "/", run_input("bonjour"), PROTO_HEADERS)
    assert response.status_code == 200
    assert response.headers["content-type"] == PROTO_MEDIA_TYPE  # exactly: the client compares it verbatim
    events = decode_frames(response.content)
    assert [e["type"] for e in events][0] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    assert "".join(e.get("delta", "") for e in events) == "echo bonjour"
    report = assert_valid_proto(response.content, fail_on_run_error=True)
    assert report["wire_events"] == events  # @ag-ui/proto decodes what we decode


@pytest.mark.slow
def test_without_protobuf_a_proto_only_request_is_406_and_sse_still_works() -> None:
    script = """
import sys
sys.modules["google.protobuf"] = None  # as if protobuf were not installed
from fastapi.testclient import TestClient
from strands import Agent
from strands_agui.runtime.adapter import StrandsAgent
from strands_agui.server.app import create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text
app = create_strands_app(StrandsAgent(Agent(model=ScriptedModel([[Text("hi")]]), callback_handler=None)))
body = {"threadId": "t", "runId": "r", "messages": [], "state": {}, "tools": [], "context": [],
        "forwardedProps": {}}
client = TestClient(app)
proto = client.post("/", json=body, headers={"Accept": "application/vnd.ag-ui.event+proto"})
both = client.post("/", json=body, headers={"Accept": "application/vnd.ag-ui.event+proto, text/event-stream;q=0.1"})
print(proto.status_code, proto.json()["detail"])
print(both.status_code, both.headers["content-type"])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    refused, fallback = done.stdout.splitlines()
    assert refused.startswith("406 ") and "produces text/event-stream." in refused
    assert "pip install 'strands-agui[proto]'" in refused
    assert fallback.startswith("200 text/event-stream")


@pytest.mark.parametrize("accept", [SSE, PROTO_MEDIA_TYPE])
def test_a_string_that_is_not_unicode_text_ends_the_run_with_encoding_error_in_both_framings(accept: str) -> None:
    from ag_ui.core import RunStartedEvent, TextMessageContentEvent, TextMessageStartEvent

    from strands_agui.server.app import create_strands_app
    from tests.support.agents import ScriptedRun
    from tests.support.live import LiveServer
    from tests.support.wire import events_in

    lone = "half \ud800 a pair"  # neither UTF-8 (protobuf strings) nor pydantic's JSON can carry it
    events = [RunStartedEvent(thread_id="thread-1", run_id="run-1"),
              TextMessageStartEvent(message_id="m", role="assistant"),
              TextMessageContentEvent(message_id="m", delta=lone)]
    with LiveServer(create_strands_app(ScriptedRun(events))) as server:
        response = post_sse(server.url + "/", run_input(), {**PROTO_HEADERS, "Accept": accept})
    received = events_in(response.content, accept)
    assert [e["type"] for e in received] == ["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]
    assert received[-1]["code"] == "ENCODING_ERROR" and "TEXT_MESSAGE_CONTENT" in received[-1]["message"]


def test_openapi_lists_both_media_types(echo_server) -> None:  # noqa: F811
    spec = httpx.get(echo_server.url + "/openapi.json").json()
    assert set(spec["paths"]["/"]["post"]["responses"]["200"]["content"]) == {SSE, PROTO_MEDIA_TYPE}


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("STRANDS_AGUI_FUZZ_RUNS", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fuzz_runs())
def test_generated_runs_cross_the_protobuf_framing_unchanged(run: FuzzRun) -> None:
    """The fuzz's generated runs (``tests/support/fuzz.py``), each event through ``encode`` and ``decode``."""
    proto_carries(check(run))
