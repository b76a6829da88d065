"""A client newer than the server: what it sends that we do not know is skipped or kept, never a 422
(``server/request/forward_compat.py``), and a client declaring AG-UI 1.1, or a version newer than any we know, gets
the newest stream we speak (``server/transport/versions.py``); ``docs/protocol-versions.md`` states the rule. Each
through the HTTP endpoint, a real ``strands.Agent`` on a scripted model, and both oracles."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient
from strands import Agent

from strands_agui import StrandsAgent, create_strands_app
from strands_agui.server.request.forward_compat import forward_compatible
from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE, decode_frames
from strands_agui.server.transport.versions import NEWEST, generation
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.oracles import assert_valid_proto, assert_valid_sse, check_ag_ui_validate_sse, check_official_client_sse
from tests.support.wire import SSE_HEADERS, body, parse_sse, user

COMPAT_LOG = "strands_agui.server.request.forward_compat"
HOLOGRAM = {"type": "hologram", "frames": 3}  # a content part type no AG-UI we know has


class Recorder:
    """A scripted agent whose model keeps the messages it was sent."""

    def __init__(self) -> None:
        self.sent: list[list[dict[str, Any]]] = []

    def post(self, data: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        def turn(messages: list[dict[str, Any]]) -> list[Any]:
            self.sent.append(messages)
            return [Text("seen")]

        agent = StrandsAgent(lambda _input: Agent(model=ScriptedModel(turn), callback_handler=None), name="compat")
        return TestClient(create_strands_app(agent)).post("/", json=data, headers=headers or SSE_HEADERS)

    def seen(self) -> list[dict[str, Any]]:
        """The model's messages, each as role and content blocks."""
        [messages] = self.sent
        return [{"role": m["role"], "content": m["content"]} for m in messages]


def assistant(text: str, message_id: str, *calls: dict[str, Any]) -> dict[str, Any]:
    return {"id": message_id, "role": "assistant", "content": text, **({"toolCalls": list(calls)} if calls else {})}


def call(call_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "lookup", "arguments": "{}"}, **extra}


def test_an_unknown_role_and_unknown_parts_are_skipped_and_the_model_sees_the_rest(
        caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder()
    messages = [user("first", id="u-0"),
                {"id": "f-1", "role": "future_role", "content": "never shown to the model"},
                assistant("noted", "a-1", call("c-1")),
                {"id": "t-1", "role": "tool", "toolCallId": "c-1", "content": [HOLOGRAM]},  # nothing left: empty
                user([HOLOGRAM], id="u-1"),  # nothing left: skipped
                user([{"type": "text", "text": "look"}, HOLOGRAM], id="u-2")]
    with caplog.at_level(logging.WARNING, logger=COMPAT_LOG):
        response = recorder.post(body(messages=messages))
    assert response.status_code == 200, response.text
    assert recorder.seen() == [
        {"role": "user", "content": [{"text": "first"}]},
        {"role": "assistant", "content": [{"text": "noted"}, {"toolUse": {"toolUseId": "c-1", "name": "lookup",
                                                                          "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "c-1", "status": "success",
                                                     "content": [{"text": "(empty)"}]}}]},
        {"role": "user", "content": [{"text": "look"}]}]  # the prompt
    [warning] = [r.getMessage() for r in caplog.records]
    for named in ("messages[1]: role 'future_role'", "messages[3].content[0]: part type 'hologram'",
                  "messages[4]: a user message with no part left", "messages[5].content[1]: part type 'hologram'"):
        assert named in warning, warning
    report = assert_valid_sse(response.content, fail_on_run_error=True)
    assert report["messages"][-1]["content"] == "seen"


def test_unknown_fields_are_kept_unread_and_come_back_as_sent(caplog: pytest.LogCaptureFixture) -> None:
    """A call the new user message abandoned makes the run send MESSAGES_SNAPSHOT: the client's messages, its
    fields included (1.1's ``encryptedValueType`` too, for a 1.1 client; a 1.0 client gets the 1.0 shape)."""
    messages = [user("first", id="u-0", futureMsg={"x": 1}),
                assistant("calling", "a-1", call("c-1", encryptedValue="c2ln", encryptedValueType="vendor.sig",
                                                 futureCall=True)),
                user([{"type": "text", "text": "next", "futurePart": 2}], id="u-1")]
    snapshots = {}
    for version in ("1.1", "1.0"):
        recorder = Recorder()
        with caplog.at_level(logging.WARNING, logger=COMPAT_LOG):
            response = recorder.post(body(messages=messages, protocolVersion=version, futureTop="x"))
        assert response.status_code == 200, response.text
        assert recorder.seen()[0] == {"role": "user", "content": [{"text": "first"}]}  # the model: no new field
        events, _ = parse_sse(response.content)
        [snapshot] = [e["messages"] for e in events if e["type"] == "MESSAGES_SNAPSHOT"]
        snapshots[version] = snapshot
    assert snapshots["1.1"][0]["futureMsg"] == {"x": 1}
    assert snapshots["1.1"][3]["content"][0]["futurePart"] == 2  # [2]: the abandoned call's answer
    assert snapshots["1.1"][1]["toolCalls"][0] == call("c-1", encryptedValue="c2ln", encryptedValueType="vendor.sig",
                                                       futureCall=True)
    assert snapshots["1.0"][1]["toolCalls"][0] == call("c-1", encryptedValue="c2ln", futureCall=True)
    warning = caplog.records[0].getMessage()
    assert "kept unread" in warning and "'futureTop'" in warning and "messages[0].'futureMsg'" in warning
    assert "futureCall" in warning and "encryptedValueType" not in warning  # 1.1's field is known


def test_only_the_tags_decide_a_malformed_known_item_is_still_refused() -> None:
    recorder = Recorder()
    for bad in ([user(5)], [user([{"type": "image"}])], [user("hi") | {"role": ""}], [{"id": "x", "content": "hi"}]):
        assert recorder.post(body(messages=bad)).status_code == 422
    assert recorder.sent == []
    assert forward_compatible([1, 2]) == [1, 2] and forward_compatible({"messages": "x"}) == {"messages": "x"}


def test_a_declaration_chooses_the_newest_stream_not_newer_than_the_client(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="strands_agui.server.transport.versions"):
        assert [generation(v) for v in (None, "0.9", "1.0", "1.0.3", "1.1", "1.1.0")] == [
            "0.0", "0.0", "1.0", "1.0", "1.1", "1.1"]
        assert not caplog.records
        assert [generation(v) for v in ("1.2", "9.0", "2", "one")] == [NEWEST] * 4
    assert len(caplog.records) == 4 and "speaks 1.1 at most" in caplog.records[0].getMessage()


@pytest.mark.parametrize("declared", ["1.1", "9.0"])
def test_a_1_1_client_and_a_newer_one_get_the_1_1_stream(declared: str) -> None:
    recorder = Recorder()
    response = recorder.post(body(protocolVersion=declared))
    assert response.status_code == 200, response.text
    events, _ = parse_sse(response.content)
    assert events[0]["type"] == "RUN_STARTED" and events[0]["protocolVersion"] == "1.1"
    report = assert_valid_sse(response.content, fail_on_run_error=True)  # the 1.0 client proceeds, warning
    assert any("speaks protocol 1.1" in w for w in report["client_warnings"])
    assert report["messages"][-1]["content"] == "seen"
    proto = TestClient(create_strands_app(StrandsAgent(Agent(model=ScriptedModel([[Text("seen")]]),
                                                             callback_handler=None)))).post(
        "/", json=body(protocolVersion=declared), headers={**SSE_HEADERS, "Accept": PROTO_MEDIA_TYPE})
    assert decode_frames(proto.content)[0]["protocolVersion"] == "1.1"
    assert_valid_proto(proto.content, fail_on_run_error=True)


def test_what_a_1_1_client_sent_of_1_1_comes_back_and_only_a_1_0_reader_strips_it() -> None:
    """The 1.1 stream, echoing an ``encryptedValueType``: ag-ui-validate accepts it; the 1.0 client (no 1.1 client
    exists to run) accepts it, stripping exactly that field with its warning, as the spec has a 1.0 peer do."""
    messages = [user("first", id="u-0"),
                assistant("", "a-1", call("c-1", encryptedValue="c2ln", encryptedValueType="vendor.sig")),
                user("next", id="u-1")]
    response = Recorder().post(body(messages=messages, protocolVersion="1.1"))
    check_ag_ui_validate_sse(response.content, content_type="text/event-stream")
    report = check_official_client_sse(response.content, strict=False, fail_on_run_error=True)
    assert [f for f in report["strict_findings"] if "encryptedValueType" not in f] == []
    assert any("encryptedValueType" in f for f in report["strict_findings"])
