"""The two conformance oracles are wired, accept a valid stream, and CAN FAIL.

Each failing case pins what the oracle actually reports, so a silently broken oracle
(node not running, a validator that accepts everything) turns this file red.
"""

from __future__ import annotations

import json

import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder

import tests.oracles as oracles
from tests.oracles import (
    OracleSetupError,
    ag_ui_validate_findings,
    ag_ui_validate_sse_findings,
    assert_valid_sse,
    assert_valid_stream,
    assert_valid_streams,
    check_ag_ui_validate,
    check_ag_ui_validate_sse,
    check_official_client,
    check_official_client_many,
    check_official_client_sse,
)

T, R = "thread-1", "run-1"


def minimal_stream(text: str = "Hello") -> list:
    return [
        RunStartedEvent(thread_id=T, run_id=R),
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta=text),
        TextMessageEndEvent(message_id="m1"),
        RunFinishedEvent(thread_id=T, run_id=R),
    ]


def tool_stream(args: str, parent_message_id: str | None = None) -> list:
    return [
        RunStartedEvent(thread_id=T, run_id=R),
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta="Let me look."),
        TextMessageEndEvent(message_id="m1"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="lookup", parent_message_id=parent_message_id),
        ToolCallArgsEvent(tool_call_id="c1", delta=args),
        ToolCallEndEvent(tool_call_id="c1"),
        RunFinishedEvent(thread_id=T, run_id=R),
    ]


def rules(events) -> set[str]:
    return {f["rule"] for f in ag_ui_validate_findings(events)}


def wire(events) -> list[dict]:
    return oracles.to_wire_events(events)


# ------------------------------------------------------------------------------------------ valid


def test_minimal_valid_stream_passes_both_oracles():
    events = minimal_stream()
    check_ag_ui_validate(events)
    report = check_official_client(events)
    assert report["ok"] is True and report["exit_code"] == 0
    assert report["outcome"] == "success"
    assert report["wire_event_types"] == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    # the client's reducer rebuilt the assistant message
    assert [(m["role"], m["content"]) for m in report["messages"]] == [("assistant", "Hello")]
    assert report["strict_findings"] == []
    # combined helper, dicts or pydantic models alike
    assert assert_valid_stream(wire(events))["ok"] is True


def test_info_findings_are_listed_but_do_not_fail():
    findings = ag_ui_validate_findings(minimal_stream())
    assert [(f["rule"], f["severity"]) for f in findings] == [("AGUI902", "info")]  # no timestamps


def test_valid_tool_call_with_parent_message_passes():
    report = assert_valid_stream(tool_stream('{"q": "x"}', parent_message_id="m1"))
    [msg] = report["messages"]  # preamble text and tool call are ONE assistant message
    assert msg["content"] == "Let me look."
    assert msg["toolCalls"][0]["function"] == {"name": "lookup", "arguments": '{"q": "x"}'}


# ------------------------------------------------------------------------------------------ failing streams


@pytest.mark.slow
def test_missing_run_finished_fails_both():
    events = minimal_stream()[:-1]
    with pytest.raises(AssertionError, match="AGUI003"):
        check_ag_ui_validate(events)
    with pytest.raises(AssertionError, match="stream ended without RUN_FINISHED or RUN_ERROR"):
        check_official_client(events)
    # the client itself tolerates it: only --strict catches it
    assert check_official_client(events, strict=False)["outcome"] == "no_terminal_event"


def test_content_for_unknown_message_fails_both():
    events = wire(minimal_stream())
    events[2] = {**events[2], "messageId": "nope"}
    with pytest.raises(AssertionError, match="AGUI101"):
        check_ag_ui_validate(events)
    with pytest.raises(AssertionError, match="No active text message found with ID 'nope'") as exc:
        check_official_client(events, strict=False)  # a hard client rejection, even without --strict
    assert '"protocol_violation"' in str(exc.value)


def test_non_json_tool_args_fail_both():
    events = tool_stream("{not json", parent_message_id="m1")
    with pytest.raises(AssertionError, match="AGUI204"):
        check_ag_ui_validate(events)
    with pytest.raises(AssertionError, match="arguments are not valid JSON"):
        check_official_client(events)
    # the client's reducer swallows the JSON error: only --strict catches it
    check_official_client(events, strict=False)


def test_event_after_run_finished_fails_both():
    events = minimal_stream()
    events = [events[0], events[-1], *events[1:-1]]
    with pytest.raises(AssertionError, match="AGUI004"):
        check_ag_ui_validate(events)
    with pytest.raises(AssertionError, match="The run has already finished"):
        check_official_client(events, strict=False)


def test_unterminated_text_message_fails_both():
    events = [e for e in wire(minimal_stream()) if e["type"] != "TEXT_MESSAGE_END"]
    with pytest.raises(AssertionError, match="AGUI103"):
        check_ag_ui_validate(events)
    with pytest.raises(AssertionError, match="text messages are still active: m1"):
        check_official_client(events)


def test_tool_result_for_unknown_call_fails_both():
    events = wire(minimal_stream())
    events.insert(-1, {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "ghost", "content": "x"})
    with pytest.raises(AssertionError, match="AGUI207"):
        check_ag_ui_validate(events)
    with pytest.raises(AssertionError, match="TOOL_CALL_RESULT for unknown toolCallId 'ghost'"):
        check_official_client(events)
    # a call made in an earlier run is known when the RunAgentInput carries it
    history = [
        {
            "id": "a0",
            "role": "assistant",
            "toolCalls": [{"id": "ghost", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        }
    ]
    check_official_client(events, input={"messages": history})


# ------------------------------------------------------------------------------------------ one oracle only


def test_unknown_field_only_the_official_client_catches():
    events = wire(minimal_stream())
    events[1] = {**events[1], "extra": 1}
    check_ag_ui_validate(events)  # ag-ui-validate ignores unknown fields
    with pytest.raises(AssertionError, match="Removed unrecognised material at '/extra'"):
        check_official_client(events)


def test_empty_delta_only_ag_ui_validate_catches():
    events = wire(minimal_stream())
    events[2] = {**events[2], "delta": ""}
    check_official_client(events)
    with pytest.raises(AssertionError, match="AGUI105"):  # a warning; max_warnings=0
        check_ag_ui_validate(events)


def test_unknown_parent_message_id_is_an_enforced_info_finding():
    # The upstream adapter's defect: parentMessageId names a message no TEXT_MESSAGE_START opened.
    events = tool_stream('{"q": "x"}', parent_message_id="not-a-message")
    assert ("AGUI208", "info") in {(f["rule"], f["severity"]) for f in ag_ui_validate_findings(events)}
    with pytest.raises(AssertionError, match="AGUI208"):
        check_ag_ui_validate(events)
    check_ag_ui_validate(events, forbid_info=())  # info only, unless forbidden
    # the client accepts it, but splits the turn into two assistant messages
    report = check_official_client(events)
    assert [m["role"] for m in report["messages"]] == ["assistant", "assistant"]


def test_run_id_mismatch_only_ag_ui_validate_catches():
    events = wire(minimal_stream())
    events[-1] = {**events[-1], "runId": "other"}
    assert "AGUI008" in rules(events)
    with pytest.raises(AssertionError, match="AGUI008"):
        check_ag_ui_validate(events)
    check_official_client(events)


# ------------------------------------------------------------------------------------------ raw SSE


def sse_body(events) -> bytes:
    enc = EventEncoder()
    return "".join(enc.encode(e) for e in events).encode()


def test_sse_body_passes_both():
    report = assert_valid_sse(sse_body(minimal_stream()))
    assert report["messages"][0]["content"] == "Hello"


def test_crlf_framing_only_the_official_client_rejects():
    body = sse_body(minimal_stream()).replace(b"\n", b"\r\n")
    check_ag_ui_validate_sse(body)  # valid SSE
    with pytest.raises(AssertionError, match="malformed_json"):
        check_official_client_sse(body)


def test_sse_garbage_payload_and_content_type():
    body = sse_body(minimal_stream()).replace(b'"delta":"Hello"', b'"delta":"Hello"xx')
    assert "AGUI502" in {f["rule"] for f in ag_ui_validate_sse_findings(body)}
    with pytest.raises(AssertionError, match="AGUI502"):
        check_ag_ui_validate_sse(body)
    with pytest.raises(AssertionError, match="malformed_json"):
        check_official_client_sse(body)
    with pytest.raises(AssertionError, match="AGUI505"):
        check_ag_ui_validate_sse(sse_body(minimal_stream()), content_type="application/json")


async def test_sse_validation_works_inside_a_running_event_loop():
    check_ag_ui_validate_sse(sse_body(minimal_stream()))


# ------------------------------------------------------------------------------------------ batch, setup


@pytest.mark.slow
def test_batch_mode_reports_every_failure_in_order():
    good = [minimal_stream(f"text {i}") for i in range(4)]
    reports = check_official_client_many(good)
    assert [r["messages"][0]["content"] for r in reports] == [f"text {i}" for i in range(4)]
    bad = minimal_stream()[:-1]
    with pytest.raises(AssertionError, match=r"2 of 4 streams rejected") as exc:
        check_official_client_many([good[0], bad, good[1], bad])
    assert "stream #1" in str(exc.value) and "stream #3" in str(exc.value)
    assert "stream #0" not in str(exc.value)
    assert len(assert_valid_streams(good[:2])) == 2


def test_missing_node_modules_is_a_clear_setup_error(monkeypatch, tmp_path):
    fake = tmp_path / "tests" / "oracles" / "agui-client-check"
    fake.mkdir(parents=True)
    legacy = fake.parent / "agui-client-check-0059"
    legacy.mkdir()
    monkeypatch.setattr(oracles, "CLIENT_DIR", fake)
    monkeypatch.setattr(oracles, "CLIENTS", {oracles.CURRENT: fake, oracles.LEGACY: legacy})
    monkeypatch.setattr(oracles, "REPO_ROOT", tmp_path)
    with pytest.raises(OracleSetupError, match=r"agui-client-check/node_modules is missing: run `make deps`"):
        check_official_client(minimal_stream())
    with pytest.raises(OracleSetupError, match=r"agui-client-check-0059/node_modules is missing: run `make deps`"):
        check_official_client(minimal_stream(), client=oracles.LEGACY)


def test_to_wire_dumps_camel_case_without_nulls():
    [ev] = wire([ToolCallStartEvent(tool_call_id="c1", tool_call_name="f")])
    assert ev == {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"}
    assert wire([json.dumps(ev)]) == [ev]
    with pytest.raises(TypeError):
        wire(ev)  # a single event, not a list
