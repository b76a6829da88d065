"""AgentCore's ``/ws`` under load and in the metrics (``create_agentcore_app``, a real loopback server): a run on a
socket is admitted by the endpoint's admission control like a POST to ``/invocations`` (one limit for both paths),
a run refused for load closes its socket with 1013 and a reason naming ``OVERLOADED`` before anything started, the
socket's runs and refusals are counted in the endpoint's Prometheus metrics, and once the load is gone a socket's
run is served whole. Saturation is a limit of one run held at a gate, never real overload."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from strands_agui import create_agentcore_app
from strands_agui.server.request.admission import AdmissionPolicy
from strands_agui.server.transport.inflight import IN_FLIGHT
from tests.oracles import assert_valid_sse, assert_valid_stream
from tests.support.agentcore import agentcore_headers, socket_to
from tests.support.live import LiveServer
from tests.support.resumable import Gate, gated_agent
from tests.support.servers import wait_until
from tests.support.wire import SSE_HEADERS, run_input

pytestmark = pytest.mark.usefixtures("no_server_errors")

ONE = AdmissionPolicy(max_runs=1, adaptive=False)


@pytest.fixture
def idle() -> Iterator[None]:
    """No run of an earlier test is still counted in flight (a limit of one counts every run of the process)."""
    wait_until(lambda: IN_FLIGHT.runs == 0, 120)
    yield


def body(text: str, run_id: str, thread_id: str = "thread-load") -> dict[str, Any]:
    return {**run_input(text, thread_id, run_id), "protocolVersion": "1.0"}


def samples(base: str, name: str, agent: str) -> dict[tuple[tuple[str, str], ...], float]:
    """``name``'s samples for ``agent`` in the server's ``/metrics``, by their other labels."""
    text = httpx.get(f"{base}/metrics", timeout=10).text
    found: dict[tuple[tuple[str, str], ...], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("agent") == agent:
                found[tuple(sorted((k, v) for k, v in sample.labels.items() if k != "agent"))] = sample.value
    return found


def test_socket_runs_are_counted_in_the_endpoints_metrics(idle: None) -> None:
    gate = Gate()
    app = create_agentcore_app(gated_agent(gate), metrics=True, name="ws-metrics")
    with LiveServer(app) as server:
        with socket_to(server.url, agentcore_headers("session-m")) as socket:
            events = socket.run(body("quick", "run-ws"))
            assert socket.closed() == (1000, "")
        assert_valid_stream(events)
        answer = httpx.post(f"{server.url}/invocations", json=body("quick", "run-http"), headers=SSE_HEADERS,
                            timeout=30)
        assert answer.status_code == 200
        assert_valid_sse(answer.text)
        runs = samples(server.url, "strands_agui_runs_total", "ws-metrics")
        assert runs == {(("code", ""), ("outcome", "success")): 2.0}  # the socket's run and the POST
        durations = samples(server.url, "strands_agui_run_duration_seconds_count", "ws-metrics")
        assert durations == {(("outcome", "success"),): 2.0}
        assert samples(server.url, "strands_agui_time_to_first_event_seconds_count", "ws-metrics") == {(): 2.0}
        assert samples(server.url, "strands_agui_active_runs", "ws-metrics") == {(): 0.0}


def test_a_socket_run_past_the_limit_closes_1013_before_anything_starts_and_the_limit_is_the_posts_too(
        idle: None) -> None:
    gate = Gate()
    app = create_agentcore_app(gated_agent(gate), admission=ONE, metrics=True, name="ws-load")
    with LiveServer(app) as server:
        with socket_to(server.url, agentcore_headers("session-a")) as holder:
            holder.send(body("wait", "run-held"))  # takes the only place, then waits at the gate
            gate.wait_for_entries(1)
            try:
                with socket_to(server.url, agentcore_headers("session-b")) as refused:
                    refused.send(body("wait", "run-refused"))
                    code, reason = refused.closed()
                assert not refused.frames  # not a RUN_STARTED: nothing was started
                posted = httpx.post(f"{server.url}/invocations", json=body("wait", "run-posted"),
                                    headers=SSE_HEADERS, timeout=10)
                assert gate.entries == 1  # neither refused run reached the agent
            finally:
                gate.opened.set()
            held = holder.run(None)
            assert holder.closed() == (1000, "")
        assert code == 1013  # RFC 6455's Try Again Later
        assert reason == "OVERLOADED (runs_in_flight): retry after 1 s; nothing was started"
        detail = posted.json()["detail"]  # the socket's run counted against the POST's limit
        assert (posted.status_code, posted.headers.get("retry-after"), detail["code"], detail["cause"],
                detail["limit"]) == (503, "1", "OVERLOADED", "runs_in_flight", 1)
        report = assert_valid_stream(held)  # the run that held the place is served whole
        assert held[-1]["type"] == "RUN_FINISHED" and "Through the gate." in json.dumps(report["messages"])
        refusals = samples(server.url, "strands_agui_refused_runs_total", "ws-load")
        assert refusals == {(("cause", "runs_in_flight"),): 2.0}  # the socket's and the POST's
        wait_until(lambda: IN_FLIGHT.runs == 0, 10)
        with socket_to(server.url, agentcore_headers("session-c")) as socket:  # the load is gone: admitted
            again = socket.run(body("quick", "run-after"))
            assert socket.closed() == (1000, "")
    assert_valid_stream(again)
    assert again[-1]["type"] == "RUN_FINISHED"
    wait_until(lambda: IN_FLIGHT.runs == 0, 10)  # every place given back


def test_an_admitted_input_that_fails_its_checks_gives_its_place_back(idle: None) -> None:
    """Admission comes first (as a POST is refused before its body is read); an admitted input that then fails its
    checks closes 1003 and leaves no run counted in flight."""
    app = create_agentcore_app(gated_agent(Gate()), admission=ONE, name="ws-bad")
    with LiveServer(app) as server:
        for _ in range(3):  # a place leaked by the first would refuse the next with 1013
            with socket_to(server.url) as socket:
                socket.send(json.dumps({"threadId": "t", "runId": "r"}))
                code, reason = socket.closed()
            assert (code, reason.split(":")[0]) == (1003, "invalid RunAgentInput")
        wait_until(lambda: IN_FLIGHT.runs == 0, 10)
        with socket_to(server.url) as socket:
            events = socket.run(body("quick", "run-good"))
            assert socket.closed() == (1000, "")
    assert_valid_stream(events)


def test_a_client_gone_mid_run_gives_its_place_back(idle: None) -> None:
    gate = Gate()
    app = create_agentcore_app(gated_agent(gate), admission=ONE, name="ws-gone")
    with LiveServer(app) as server:
        with socket_to(server.url) as socket:
            socket.send(body("wait", "run-left"))
            gate.wait_for_entries(1)
        # the client left: its run is cancelled and its place given back
        wait_until(lambda: IN_FLIGHT.runs == 0, 30)
        assert gate.cancelled.wait(10)
        with socket_to(server.url) as socket:  # a leaked place would refuse it with 1013
            events = socket.run(body("quick", "run-next"))
            assert socket.closed() == (1000, "")
    assert_valid_stream(events)


def test_an_admitted_socket_run_failing_mid_stream_ends_run_error_and_gives_its_place_back(idle: None) -> None:
    """Its model fails after its text: the official client holds that text and ``RUN_ERROR`` ``STRANDS_ERROR``,
    the socket closes 1000, the failure is counted, and with a limit of one the next socket's run is admitted."""
    from strands import Agent

    from strands_agui import StrandsAgent
    from strands_agui.tooling.scripted import Fail, ScriptedModel, Text

    words = Text(" ".join(f"word{i}" for i in range(20)))
    model = ScriptedModel([[words, Fail(RuntimeError("the provider fell over"))], [Text("back again")]])
    agent = StrandsAgent(Agent(model=model, callback_handler=None), name="failing")
    app = create_agentcore_app(agent, admission=ONE, metrics=True, name="ws-fails")
    with LiveServer(app) as server:
        with socket_to(server.url) as socket:
            failed = socket.run(body("hi", "run-fails"))
            assert socket.closed() == (1000, "")
        with socket_to(server.url) as socket:  # a place kept by the failed run would refuse it with 1013
            again = socket.run(body("hi", "run-again"))
            assert socket.closed() == (1000, "")
        runs = samples(server.url, "strands_agui_runs_total", "ws-fails")
    report = assert_valid_stream(failed)
    said = [m["content"] for m in report["messages"] if m["role"] == "assistant" and m.get("content")]
    assert said and said[-1].startswith("word0 word1") and said[-1].endswith("word19"), said
    assert failed[-1]["type"] == "RUN_ERROR" and failed[-1]["code"] == "STRANDS_ERROR", failed[-1]
    assert_valid_stream(again)
    assert again[-1]["type"] == "RUN_FINISHED"
    assert runs == {(("code", "STRANDS_ERROR"), ("outcome", "error")): 1.0,
                    (("code", ""), ("outcome", "success")): 1.0}
