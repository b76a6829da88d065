"""Hostile HTTP input: a battery of bad requests against a real uvicorn server.

Every case must be refused before a run starts, with a 4xx whose JSON ``detail`` says what is wrong (the
expected fragment is part of the case), never a 500, a traceback or a log record at WARNING or above, and the
server must serve a normal run afterwards. The cases are ``tests/support/hostile.py``'s ``CASES``; the figure in
docs/reliability.md is their number.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from strands import Agent

from strands_agui import StrandsAgent, create_strands_app
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.oracles import assert_valid_sse
from tests.support.hostile import CASES, Case
from tests.support.live import LiveServer
from tests.support.wire import SSE_HEADERS, body


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    model = ScriptedModel([[Text("fine")]] * 1000)
    agent = StrandsAgent(Agent(model=model, callback_handler=None), name="hostile")
    with LiveServer(create_strands_app(agent)) as live:
        yield live


def send(server: LiveServer, case: Case) -> httpx.Response:
    content: Any = case.content
    if case.chunked and content is not None:
        data = content
        content = iter([data[i:i + 65536] for i in range(0, len(data), 65536)])
    return httpx.request(case.method, server.url + case.path, content=content, headers=case.headers, timeout=30)


def test_the_battery_has_at_least_60_cases() -> None:
    assert len(CASES) >= 60
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_request_is_a_4xx_saying_what_is_wrong(server: LiveServer, case: Case,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        response = send(server, case)
    assert response.status_code == case.status, response.text[:500]
    assert response.headers["content-type"].startswith("application/json"), response.headers
    detail = response.json()["detail"]
    assert case.says in json.dumps(detail, ensure_ascii=False), detail
    assert "Traceback" not in response.text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info], caplog.records
    healthy = httpx.post(server.url + "/", json=body(), headers=SSE_HEADERS, timeout=30)
    assert healthy.status_code == 200
    assert healthy.text.startswith('data: {"type":"RUN_STARTED"') and '"type":"RUN_FINISHED"' in healthy.text


@pytest.mark.slow
def test_the_server_still_streams_valid_runs_after_the_battery(server: LiveServer) -> None:
    for case in CASES:
        send(server, case)
    response = httpx.post(server.url + "/", json=body(), headers=SSE_HEADERS, timeout=30)
    report = assert_valid_sse(response.content, fail_on_run_error=True)
    assert report["messages"][-1]["content"] == "fine"
