"""``strands-agui serve --agentcore``: what it refuses (one line each), and how it combines with the other serve
options (several workers, threads, metrics, no API docs; resumable runs), as processes on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests.oracles import assert_valid_sse, assert_valid_stream
from tests.support.agentcore import agentcore_headers, our_server, ping, socket_to
from tests.support.cli import assert_explains, cli_in_process
from tests.support.install import free_port
from tests.support.wire import run_input, sse_events


@pytest.mark.parametrize(("args", "fragments"), [
    ((), ("--agentcore serves one agent", "--app MODULE:ATTR")),
    (("--app", "tests.support.servers:EXAMPLE_PROMPTS"), ("is a dict", "AgentCore serves one agent")),
    (("--app", "tests.support.threads_app:app"), ("is a FastAPI", "AgentCore serves one agent")),
    (("--app", "tests.support.agentcore_apps:agnet"), ("agnet",)),
], ids=["no-app", "not-an-agent", "an-app-of-several", "misspelt"])
def test_what_serve_agentcore_refuses(args: tuple[str, ...], fragments: tuple[str, ...]) -> None:
    assert_explains(cli_in_process(["serve", "--agentcore", "--port", str(free_port()), *args]), *fragments)


@pytest.mark.slow
def test_with_two_workers_threads_metrics_and_no_docs(tmp_path: Path) -> None:
    with our_server(tmp_path, "--workers", "2", "--threads", "--metrics", "--no-docs") as base:
        assert ping(base)["status"] == "Healthy"
        first = run_input("first words", "thread-cli", "run-1")
        response = httpx.post(f"{base}/invocations", json=first, headers=agentcore_headers("s-1"), timeout=30)
        assert_valid_sse(response.content, input=first)
        with socket_to(base, agentcore_headers("s-2")) as socket:  # only the new message: the thread is kept
            events = socket.run(run_input("second words", "thread-cli", "run-2"))
            assert socket.closed() == (1000, "")
        assert "echo first words" in json.dumps(assert_valid_stream(events)["messages"])
        assert httpx.get(f"{base}/docs", timeout=5).status_code == 404
        assert "agui_runs" in httpx.get(f"{base}/metrics", timeout=5).text


@pytest.mark.slow
def test_with_resumable_runs(tmp_path: Path) -> None:
    with our_server(tmp_path, "--resumable") as base:
        body = run_input("hello", "thread-resumable", "run-resumable")
        response = httpx.post(f"{base}/invocations", json=body, headers=agentcore_headers("s-r"), timeout=30)
        assert "id: run-resumable:1" in response.text
        again = httpx.get(f"{base}/invocations/runs/run-resumable/events", timeout=30,
                          headers={"Accept": "text/event-stream"})
        assert sse_events(again.text) == sse_events(response.text)
