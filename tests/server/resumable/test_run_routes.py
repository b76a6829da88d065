"""Resumable runs in one process (events in memory), served by uvicorn on loopback: every frame has an id; a
multi-agent run cut mid-stream is stitched back exactly by a reconnect with ``Last-Event-ID``; a run outlives
its client for ``detach_seconds`` and no longer; cancel by id ends the run RUN_FINISHED ``cancelled`` after
``on_cancel``; hostile ids and headers are refused with 4xx. Redis and several workers: test_resumable_redis.py.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from typing import Any

import httpx
import pytest

from strands_agui.config import CancelContext
from strands_agui.examples.multi_agent import build_agent
from strands_agui.server.app import create_strands_app
from strands_agui.server.resumable.event_store import MemoryEvents
from strands_agui.server.resumable.run_routes import Resumable
from strands_agui.server.transport.proto import PROTO_MEDIA_TYPE, decode_frames
from tests.oracles import CLIENT_DIR, _node, assert_valid_sse
from tests.support.live import LiveServer
from tests.support.resumable import SSE, Gate, cut, frames, gated_agent, reconnect, run_body

MULTI = "/multi_agent"


def team(**settings: Any) -> LiveServer:
    """The multi_agent example (a Swarm: subagents, a streaming tool) with scripted pauses, resumable."""
    agent = build_agent({"STRANDS_AGUI_SCRIPTED_DELAY": "0.01"})
    return LiveServer(create_strands_app(agent, path=MULTI, **settings))


def stitched(held: bytes, rest: bytes) -> bytes:
    return held + rest


def test_every_frame_has_an_id_and_a_cut_run_is_stitched_back_exactly() -> None:
    with team(resumable=True) as server:
        url = server.url + MULTI
        held, last = cut(url, run_body("cut-1"), after=12)
        assert last == "cut-1:12"
        rest = reconnect(url, "cut-1", last)
        assert rest.status_code == 200 and rest.headers["content-type"].startswith("text/event-stream")
        whole = reconnect(url, "cut-1", None)  # without the header: the run from its start
    joined = frames(stitched(held, rest.content))
    assert [i for i, _ in joined] == [f"cut-1:{n}" for n in range(1, len(joined) + 1)]  # each event once, in order
    assert joined == frames(whole.content)
    types = [e["type"] for _, e in joined]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED" and "SUBAGENT_STARTED" in types
    report = assert_valid_sse(stitched(held, rest.content), fail_on_run_error=True)
    assert any("three notes mention it" in str(m.get("content")) for m in report["messages"])


def test_a_reconnect_after_the_run_ended_replays_what_follows_the_id() -> None:
    with team(resumable=True) as server:
        url = server.url + MULTI
        live = httpx.post(url, json=run_body("ended-1"), headers=SSE, timeout=30)
        events = frames(live.content)
        assert all(i == f"ended-1:{n}" for n, (i, _) in enumerate(events, 1))
        rest = reconnect(url, "ended-1", "ended-1:5")
        last = reconnect(url, "ended-1", f"ended-1:{len(events)}")  # the terminal event held: nothing left
    assert frames(rest.content) == events[5:]
    assert last.status_code == 204 and last.content == b""  # the SSE standard's "stop reconnecting"


def test_the_capabilities_advertise_resumable_transport() -> None:
    with team(resumable=True) as server:
        assert httpx.get(server.url + MULTI + "/capabilities").json()["transport"]["resumable"] is True
    with team(resumable=False) as server:
        assert "resumable" not in httpx.get(server.url + MULTI + "/capabilities").json()["transport"]
        assert httpx.get(server.url + MULTI + "/runs/x/events").status_code == 404  # no run routes


def test_protobuf_frames_are_counted_from_the_last_event_id() -> None:
    pytest.importorskip("google.protobuf")
    with team(resumable=True) as server:
        url = server.url + MULTI
        live = httpx.post(url, json=run_body("proto-1"), headers=SSE, timeout=30)
        rest = reconnect(url, "proto-1", "proto-1:7", headers={"Accept": PROTO_MEDIA_TYPE})
    assert rest.headers["content-type"] == PROTO_MEDIA_TYPE
    assert decode_frames(rest.content) == [e for _, e in frames(live.content)][7:]


# ----------------------------------------------------------------------------- detach


def test_a_detached_run_goes_on_and_a_reconnect_gets_its_end() -> None:
    gate = Gate()
    with LiveServer(create_strands_app(gated_agent(gate), resumable=Resumable(detach_seconds=30))) as server:
        held, last = cut(server.url + "/", run_body("detach-1"), after=3)
        assert gate.entered.wait(10)
        time.sleep(0.3)  # the server has seen the disconnect: the run is detached, still waiting in the tool
        assert not gate.cancelled.is_set()
        gate.opened.set()
        rest = reconnect(server.url, "detach-1", last)
    joined = frames(held + rest.content)
    assert joined[-1][1]["type"] == "RUN_FINISHED"
    assert "".join(e.get("delta", "") for _, e in joined if e["type"] == "TEXT_MESSAGE_CONTENT").endswith(
        "Through the gate.")
    assert_valid_sse(held + rest.content, fail_on_run_error=True)


def test_a_detached_run_nobody_reconnects_to_is_cancelled_after_detach_seconds() -> None:
    gate = Gate()
    with LiveServer(create_strands_app(gated_agent(gate), resumable=Resumable(detach_seconds=0.5))) as server:
        held, last = cut(server.url + "/", run_body("abandoned-1"), after=3)
        assert gate.cancelled.wait(10), "the run was not cancelled inside its tool"
        rest = reconnect(server.url, "abandoned-1", last)
    end = frames(rest.content)[-1][1]
    assert end["type"] == "RUN_ERROR" and end["code"] == "RUN_ABANDONED"
    assert_valid_sse(held + rest.content)


# ----------------------------------------------------------------------------- cancel by id


def test_cancel_by_id_finishes_the_run_cancelled_after_on_cancel() -> None:
    gate, kept = Gate(), []

    def on_cancel(context: CancelContext) -> None:
        kept.append(context)

    app = create_strands_app(gated_agent(gate, on_cancel=on_cancel), resumable=True)
    with LiveServer(app) as server:
        result: dict[str, httpx.Response] = {}
        posting = threading.Thread(target=lambda: result.setdefault(
            "run", httpx.post(server.url + "/", json=run_body("cancel-1"), headers=SSE, timeout=30)))
        posting.start()
        assert gate.entered.wait(10)
        answer = httpx.post(server.url + "/runs/cancel-1/cancel")
        gate.opened.set()  # a tool that ignores Strands' cancel signal returns; Strands then stops
        posting.join(30)
        again = httpx.post(server.url + "/runs/cancel-1/cancel")
        unknown = httpx.post(server.url + "/runs/nope/cancel")
    assert answer.status_code == 202 and answer.json() == {"runId": "cancel-1", "status": "cancelling"}
    events = [e for _, e in frames(result["run"].content)]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"] == {"type": "cancelled"}
    report = assert_valid_sse(result["run"].content, fail_on_run_error=True)
    assert [c.input_data.run_id for c in kept] == ["cancel-1"]
    assert any("Waiting at the gate." in str(m.get("content")) for m in kept[0].messages)  # the partial work
    assert report["ok"] is True and report["messages"][0]["content"] == "Waiting at the gate."  # what the user holds
    assert again.status_code == 409 and unknown.status_code == 404


# ----------------------------------------------------------------------------- refusals


@pytest.fixture(scope="module")
def ended_run() -> Any:
    with team(resumable=Resumable(MemoryEvents(max_events=40))) as server:
        url = server.url + MULTI
        assert httpx.post(url, json=run_body("mine"), headers=SSE, timeout=30).status_code == 200
        assert httpx.post(url, json=run_body("other"), headers=SSE, timeout=30).status_code == 200
        yield url


@pytest.mark.parametrize(("last_event_id", "status"), [
    ("x" * 100_00, 400),  # huge
    ("garbage", 400),
    ("\u00e9\u00e9:1", 400),
    ("mine:-1", 400),
    ("mine:1e3", 400),
    ("mine:\u0661", 400),  # a non-ASCII digit
    ("other:3", 400),  # another run's id
    ("mine:99999", 400),  # an event the run never wrote
    ("mine:" + "9" * 40, 400),
    ("mine:1", 404),  # the first events were dropped by the cap (max_events=40)
])
def test_hostile_last_event_ids_are_refused(ended_run: str, last_event_id: str, status: int) -> None:
    headers = {**SSE, "Last-Event-ID": last_event_id.encode("utf-8")}  # bytes: sent as they are
    response = httpx.get(f"{ended_run}/runs/mine/events", headers=headers)
    assert response.status_code == status, response.text
    assert response.json()["detail"]


@pytest.mark.parametrize(("run_id", "status"), [("unknown", 404), ("y" * 300, 422), ("a%0Ab", 422)])
def test_unknown_or_malformed_run_ids_are_refused(ended_run: str, run_id: str, status: int) -> None:
    response = httpx.get(f"{ended_run}/runs/{run_id}/events", headers=SSE)
    assert response.status_code == status, response.text
    assert httpx.post(f"{ended_run}/runs/{run_id}/cancel").status_code == status


def test_a_run_id_cannot_be_started_twice(ended_run: str) -> None:
    response = httpx.post(ended_run, json=run_body("mine"), headers=SSE)
    assert response.status_code == 409 and "already started" in response.json()["detail"]


def test_the_official_clients_connect_agent_rebuilds_a_run_from_its_events() -> None:
    """README: a subclass of ``HttpAgent`` whose ``connect`` GETs the run's events makes ``connectAgent`` work."""
    with team(resumable=True) as server:
        url = server.url + MULTI
        assert httpx.post(url, json=run_body("connect-1"), headers=SSE, timeout=30).status_code == 200
        done = subprocess.run([_node(), str(CLIENT_DIR / "connect_agent.mjs"), url, "connect-1"],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    held = json.loads(done.stdout)["messages"]
    assert {"id": "user-connect-1", "role": "user", "content": "resumable runs"} in held
    assert any("three notes mention it" in str(m.get("content")) for m in held)  # the writer's answer


def test_a_0_0_x_client_reconnects_to_the_stream_of_its_own_generation() -> None:
    """A client declaring no protocolVersion gets the 0.0.x stream (server/transport/versions.py), and so does its
    reconnect declaring none: a replay is the same events."""
    body = {key: value for key, value in run_body("legacy-1").items() if key != "protocolVersion"}
    with team(resumable=True) as server:
        url = server.url + MULTI
        live = httpx.post(url, json=body, headers=SSE, timeout=30)
        again = reconnect(url, "legacy-1", None, protocol_version=None)
    assert frames(again.content) == frames(live.content)
    assert "protocolVersion" not in frames(live.content)[0][1]


@pytest.mark.parametrize("data", [
    '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"caf\u00e9 \\n\u2028\u2029\U0001f600"}',  # one line
    '{"type":"RAW","event":"two\nlines"}', "a\r\nb\rc",  # not an event's JSON: a data line each, as fastapi's
])
def test_a_stored_events_frame_is_fastapis_sse_event_with_its_id(data: str) -> None:
    """``run_tap.id_frame`` builds a one-line event's frame in one step: byte-equal to ``format_sse_event``."""
    from fastapi.sse import format_sse_event

    from strands_agui.server.resumable.run_tap import id_frame
    from strands_agui.server.transport.streaming import SSE as SSE_FRAMING

    assert id_frame(SSE_FRAMING, "run-1", 7, data) == format_sse_event(data_str=data, id="run-1:7")
