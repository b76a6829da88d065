"""Every example route over real HTTP on loopback, checked by clients nobody here wrote: the official
@ag-ui/client (``--strict``; ``--followup`` for the frontend-tool round trip; SSE and ``--proto``) and
ag-ui-validate (live; the protobuf bodies decoded by ``server.transport.proto``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui_validate.pytest_plugin import assert_valid_agui_endpoint

from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE, decode_frames
from strands_agui.tooling.testing import normalize_ids
from tests.oracles import check_ag_ui_validate, run_official_client
from tests.support.live import LiveServer
from tests.support.servers import EXAMPLE_PROMPTS, example_input, served_examples


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[LiveServer, list[dict[str, Any]]]]:
    with served_examples(paced=False) as server:
        yield server, httpx.get(f"{server.url}/examples", timeout=10).json()


def official_client(url: str, data: dict[str, Any], tmp: Path, *extra: str) -> dict[str, Any]:
    path = tmp / f"{data['threadId']}.json"
    path.write_text(json.dumps(data))
    found, code, stderr = run_official_client([url, str(path), "--strict", "--fail-on-run-error", "--timeout", "60",
                                               *extra])
    report = found or {}
    assert code == 0, f"{url}: {json.dumps(report, indent=1)[:3000]}\n{stderr[-2000:]}"
    return report


@pytest.mark.slow
def test_official_client_accepts_every_example_route(served, tmp_path: Path) -> None:
    server, entries = served
    assert {e["path"] for e in entries} == set(EXAMPLE_PROMPTS)

    def check(entry: dict[str, Any], *encoding: str) -> dict[str, Any]:
        extra = ("--followup", "background changed") if entry["frontendTools"] else ()
        data = example_input(entry)
        data["threadId"] += "-".join(("", *encoding))  # the two encodings' runs never share a thread
        return official_client(server.url + entry["path"], data, tmp_path, *extra, *encoding)

    with ThreadPoolExecutor(max_workers=4) as pool:
        reports = dict(zip([e["path"] for e in entries], pool.map(check, entries), strict=True))
        proto = dict(zip([e["path"] for e in entries], pool.map(lambda e: check(e, "--proto"), entries),
                         strict=True))
    for path, report in proto.items():  # the client holds the same over the protobuf framing
        assert report["content_type"] == PROTO_MEDIA_TYPE, path
        assert held(report) == held(reports[path]), path
    chat = json.dumps(reports["/agentic_chat"])
    assert "change_background" in chat and "Done" in chat, chat[:2000]  # the follow-up run was answered
    assert reports["/agentic_generative_ui"]["state"], "the plan reached the client's state"
    team = reports["/multi_agent"]["messages"]
    assert len({m["subagentRunId"] for m in team if "subagentRunId" in m}) == 2  # researcher and writer


@pytest.mark.slow
async def test_ag_ui_validate_accepts_every_example_route(served) -> None:
    server, entries = served
    for entry in entries:
        await assert_valid_agui_endpoint(server.url + entry["path"], input=example_input(entry), max_warnings=0)


@pytest.mark.slow
def test_ag_ui_validate_accepts_every_example_route_over_proto(served) -> None:
    server, entries = served
    for entry in entries:
        response = httpx.post(server.url + entry["path"], json=example_input(entry), timeout=30,
                              headers={"Accept": PROTO_MEDIA_TYPE, "Content-Type": "application/json"})
        assert response.headers["content-type"] == PROTO_MEDIA_TYPE
        check_ag_ui_validate(decode_frames(response.content))


def held(report: dict[str, Any]) -> Any:
    """What the official client ended up holding, ids as relations (each run mints its own), an interrupt's
    ``expiresAt`` as its presence (each run starts at its own moment)."""
    runs = [report, *([report["followup"]] if report.get("followup") else [])]
    for run in runs:
        for interrupt in run.get("interrupts") or ():
            interrupt["expiresAt"] = "expiresAt" in interrupt
    kept = [{**{key: run.get(key) for key in ("outcome", "run_error", "interrupts", "run_result")},
             "pending": [{"toolCallId": id_} for id_ in run.get("pending_tool_call_ids") or ()]}
            for run in runs] + [{"messages": report["messages"], "state": report["state"]}]
    # a background task's id is Strands' own uuid, new in every run
    text = re.sub(r'(Task ID: |"taskId": ")[0-9a-f-]{36}', r"\1<task id>", json.dumps(kept))
    return normalize_ids(json.loads(text))
