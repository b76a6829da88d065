"""Both client generations: a client declaring AG-UI >= 1.0 gets the 1.0 stream (``protocolVersion`` on
RUN_STARTED); one declaring nothing (``@ag-ui/client`` 0.0.x, as CopilotKit 1.74 pins it) gets what
``@ag-ui/core`` 0.0.59 accepts (``server/transport/versions.py``, ``docs/protocol-versions.md``). Every golden stream
and
every example route goes through both official clients, and both hold the same wherever both can say it."""

from __future__ import annotations

import copy
import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import RunFinishedEvent, RunStartedEvent, ToolCallResultEvent

from strands_agui.server.transport.versions import declared_event, legacy_event, parts_text, speaks_legacy
from strands_agui.tooling.testing import normalize_ids
from tests.oracles import CURRENT, LEGACY, check_official_client, check_official_client_many, run_official_client
from tests.support.live import LiveServer
from tests.support.replays import NAMES, replayed
from tests.support.servers import EXAMPLE_PROMPTS, example_input, served_examples


def test_a_declaration_chooses_the_stream(caplog: pytest.LogCaptureFixture) -> None:
    assert [speaks_legacy(v) for v in (None, "0.0.59", "0.9", "1.0", "1.0.0", "1.1")] == [
        True, True, True, False, False, False]
    with caplog.at_level(logging.WARNING, logger="strands_agui.server.transport.versions"):
        assert not speaks_legacy("1.2") and not speaks_legacy("one")  # newer / unreadable: proceed, warn
        assert not speaks_legacy("9" * 5000)  # too long to read: never a crash
    assert [r.getMessage().split(";")[0] for r in caplog.records] == [
        "the client declared AG-UI protocol version '1.2'", "the client declared AG-UI protocol version 'one'",
        f"the client declared AG-UI protocol version '{'9' * 40}'"]


def test_what_a_legacy_client_gets_for_each_1_0_field() -> None:
    started = RunStartedEvent(thread_id="t", run_id="r", protocol_version="1.0")
    assert declared_event(RunStartedEvent(thread_id="t", run_id="r")).protocol_version == "1.0"
    assert legacy_event(started).protocol_version is None
    pending = RunFinishedEvent.model_validate({"threadId": "t", "runId": "r", "metadata": {"stopReason": "end_turn"},
                                               "outcome": {"type": "success", "pendingToolCallIds": ["c1"]}})
    assert dump(legacy_event(pending)) == {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                                           "outcome": {"type": "success"},
                                           "metadata": {"stopReason": "end_turn", "pendingToolCallIds": ["c1"]}}
    cancelled = RunFinishedEvent.model_validate({"threadId": "t", "runId": "r", "outcome": {"type": "cancelled"}})
    assert dump(legacy_event(cancelled)) == {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                                             "metadata": {"outcome": "cancelled"}}
    parts = [{"type": "text", "text": "a chart"},
             {"type": "image", "source": {"type": "data", "value": "AAAA", "mimeType": "image/png"}}]
    result = ToolCallResultEvent(message_id="m", tool_call_id="c1", content=parts)
    assert legacy_event(result).content == "a chart\n[image: image/png, data 4 chars]" == parts_text(parts)
    assert dump(legacy_event(result, proto=True)) == {  # @ag-ui/proto 0.0.59 has no TOOL_CALL_RESULT
        "type": "CUSTOM", "name": "TOOL_CALL_RESULT", "value": {k: v for k, v in dump(result).items() if k != "type"}}


def test_without_the_downgrade_the_0059_client_rejects_a_frontend_tool_run() -> None:
    """The issue's defect, reproduced: CopilotKit's client refuses the 1.0 success outcome."""
    with pytest.raises(AssertionError, match="unrecognized_keys"):
        check_official_client(replayed("frontend_tool_halt"), client=LEGACY)


@pytest.mark.slow
@pytest.mark.parametrize("proto", [False, True], ids=["sse", "proto"])
def test_every_golden_stream_passes_both_client_generations(proto: bool) -> None:
    streams = [replayed(name) for name in NAMES]
    current = check_official_client_many([[declared_event(e) for e in s] for s in streams], proto=proto)
    legacy = check_official_client_many([[legacy_event(e, proto=proto) for e in s] for s in streams],
                                        client=LEGACY, proto=proto)
    for name, new, old in zip(NAMES, current, legacy, strict=True):
        assert (old["oracle"].split()[0], new["oracle"].split()[0]) == (f"@ag-ui/client@{LEGACY}",
                                                                        f"@ag-ui/client@{CURRENT}")
        assert held(old, proto=proto) == held(new, proto=proto), name


@pytest.mark.slow
def test_every_example_route_passes_both_client_generations(tmp_path: Path) -> None:
    with served_examples(paced=False) as server:
        entries = httpx.get(f"{server.url}/examples", timeout=10).json()
        assert {e["path"] for e in entries} == set(EXAMPLE_PROMPTS)
        jobs = [(entry, client, encoding) for entry in entries for client in (CURRENT, LEGACY)
                for encoding in ((), ("--proto",))]
        with ThreadPoolExecutor(max_workers=2) as pool:
            reports = list(pool.map(lambda job: live_client(server.url, *job, tmp_path), jobs))
    by_job = {(entry["path"], client, encoding): report
              for (entry, client, encoding), report in zip(jobs, reports, strict=True)}
    for entry in entries:
        for encoding in ((), ("--proto",)):
            new, old = by_job[entry["path"], CURRENT, encoding], by_job[entry["path"], LEGACY, encoding]
            assert new["request"]["protocolVersion"] == "1.0" and "protocolVersion" not in old["request"]
            proto = bool(encoding)
            assert held(old, proto=proto) == held(new, proto=proto), (entry["path"], encoding)
    chat = by_job["/agentic_chat", LEGACY, ()]
    assert chat["followup"]["outcome"] == "success"  # the frontend tool's follow-up run, as CopilotKit makes it
    assert "change_background" in json.dumps(chat["messages"])


def test_the_server_declares_its_version_only_to_a_client_that_declared_one() -> None:
    from strands_agui.examples.demo import build_app

    entry = {"path": "/agentic_chat", "frontendTools": [], "initialState": {}}
    with LiveServer(build_app()) as server:
        for declared in (None, "1.0"):
            body = {**example_input(entry), **({"protocolVersion": declared} if declared else {})}
            response = httpx.post(server.url + "/agentic_chat", json=body, timeout=30)
            events = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
            assert events[0].get("protocolVersion") == declared


# -- helpers ---------------------------------------------------------------------------------------------

def dump(event: Any) -> dict[str, Any]:
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[no-any-return]


def live_client(url: str, entry: dict[str, Any], client: str, encoding: tuple[str, ...], tmp: Path
                ) -> dict[str, Any]:
    data = example_input(entry)
    data["threadId"] += f"-{client}-{len(encoding)}"  # every run its own thread
    path = tmp / f"{data['threadId']}.json"
    path.write_text(json.dumps(data))
    extra = ("--followup", "background changed") if entry["frontendTools"] else ()
    found, code, stderr = run_official_client([url + entry["path"], str(path), "--strict", "--fail-on-run-error",
                                               "--timeout", "60", "--events-out", str(path) + ".out", *extra,
                                               *encoding], client=client)
    report = found or {}
    assert code == 0, f"{client} {entry['path']} {encoding}: {json.dumps(report)[:3000]}\n{stderr}"
    report["request"] = report.get("request_body") or {}
    return report  # type: ignore[no-any-return]


def held(report: dict[str, Any], *, proto: bool) -> Any:
    """What a client holds that both generations can express: its messages (a tool message's content parts as
    0.0.x's text; over protobuf, 0.0.59 has no TOOL_CALL_RESULT, REASONING_* or ACTIVITY_* message, so no tool,
    reasoning or activity messages), state, outcome (0.0.x has no ``cancelled``), interrupts, run error and
    result; ids as relations."""
    report = copy.deepcopy(report)
    runs = [report, *([report["followup"]] if report.get("followup") else [])]
    for run in runs:
        for interrupt in run.get("interrupts") or ():
            interrupt["expiresAt"] = "expiresAt" in interrupt
    messages = [_legacy_message(m) for m in report["messages"]
                if not (proto and m["role"] in ("tool", "reasoning", "activity"))]
    outcomes = [{"outcome": "success" if run.get("outcome") == "cancelled" else run.get("outcome"),
                 **{key: run.get(key) for key in ("run_error", "interrupts", "run_result")}} for run in runs]
    held = [*outcomes, {"messages": messages, "state": report["state"]}]
    # each client orders keys its own way; a background task's id is Strands' own uuid, new in every run
    text = re.sub(r'(Task ID: |"taskId": ")[0-9a-f-]{36}', r"\1<task id>", json.dumps(held, sort_keys=True))
    return normalize_ids(json.loads(text))


def _legacy_message(message: dict[str, Any]) -> dict[str, Any]:
    if message["role"] == "tool" and isinstance(message.get("content"), list):
        return {**message, "content": parts_text(message["content"])}
    return {key: value for key, value in message.items() if key != "encryptedValue"}
