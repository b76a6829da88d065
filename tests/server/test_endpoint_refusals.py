"""Requests refused before a run: Content-Type (415), malformed or invalid bodies (422 naming the field), bodies
over the limit (413, declared or chunked), and settings checked when the app is made.

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); helpers in ``tests/support/``.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from strands_agui.server.app import create_strands_app
from tests.support.agents import echo_model, strands_agent
from tests.support.live import LiveServer
from tests.support.wire import SSE_HEADERS, parse_sse, post_sse, run_input, text_of

pytestmark = pytest.mark.usefixtures("no_server_errors")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_non_json_content_type_is_415(echo_server: LiveServer, content_type: str | None) -> None:
    headers = {"Accept": "text/event-stream"}
    if content_type:
        headers["Content-Type"] = content_type
    response = httpx.post(echo_server.url + "/", content=json.dumps(run_input()), headers=headers)
    assert response.status_code == 415
    assert "application/json" in response.json()["detail"]


def test_json_subtypes_are_json(echo_server: LiveServer) -> None:
    headers = {"Accept": "text/event-stream", "Content-Type": "application/vnd.example+json; charset=utf-8"}
    response = httpx.post(echo_server.url + "/", content=json.dumps(run_input()), headers=headers)
    assert response.status_code == 200


def test_malformed_json_is_422(echo_server: LiveServer) -> None:
    response = httpx.post(echo_server.url + "/", content=b'{"threadId": ', headers=SSE_HEADERS)
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "json_invalid"


@pytest.mark.parametrize(
    ("mutate", "loc"),
    [
        (lambda body: body.pop("threadId"), ["body", "threadId"]),
        (lambda body: body.update(messages="not a list"), ["body", "messages"]),
        # (a role this server does not know is skipped, not refused: tests/server/request/test_forward_compat.py)
        (lambda body: body["messages"][0].update(role=None), ["body", "messages", 0]),
    ],
)
def test_invalid_run_input_is_422_naming_the_field(
    echo_server: LiveServer, mutate: Callable[[dict[str, Any]], Any], loc: list[Any]
) -> None:
    body = run_input()
    mutate(body)
    response = post_sse(echo_server.url + "/", body)
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/json"
    assert any(error["loc"][: len(loc)] == loc for error in response.json()["detail"]), response.json()


def test_empty_body_is_422(echo_server: LiveServer) -> None:
    response = httpx.post(echo_server.url + "/", content=b"", headers=SSE_HEADERS)
    assert response.status_code == 422


def test_body_within_limit_runs(echo_server: LiveServer) -> None:
    body = run_input("x" * 3000)
    assert len(json.dumps(body)) < 4096
    assert post_sse(echo_server.url + "/", body).status_code == 200


def test_declared_oversized_body_is_413_before_it_is_sent(echo_server: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", echo_server.port), timeout=5) as conn:
        conn.sendall(
            b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Accept: text/event-stream\r\nContent-Length: 100000000\r\n\r\n"
        )
        reply = conn.recv(65536)  # not one body byte was sent
    assert reply.startswith(b"HTTP/1.1 413 "), reply


def test_oversized_body_is_413(echo_server: LiveServer) -> None:
    response = post_sse(echo_server.url + "/", run_input("x" * 5000))
    assert response.status_code == 413


def test_oversized_chunked_body_is_413(echo_server: LiveServer) -> None:
    payload = json.dumps(run_input("x" * 10_000)).encode()
    chunks = (payload[i : i + 1000] for i in range(0, len(payload), 1000))  # no Content-Length: chunked
    response = httpx.post(echo_server.url + "/", content=chunks, headers=SSE_HEADERS)
    assert response.status_code == 413


def test_chunked_body_within_limit_runs(echo_server: LiveServer) -> None:
    payload = json.dumps(run_input("chunked")).encode()
    chunks = (payload[i : i + 50] for i in range(0, len(payload), 50))
    response = httpx.post(echo_server.url + "/", content=chunks, headers=SSE_HEADERS)
    assert response.status_code == 200
    assert text_of(parse_sse(response.content)[0]) == "echo chunked"


def test_settings_are_checked() -> None:
    agent = strands_agent(echo_model())
    with pytest.raises(ValueError, match="keepalive_seconds"):
        create_strands_app(agent, keepalive_seconds=0)
    with pytest.raises(ValueError, match="max_body_bytes"):
        create_strands_app(agent, max_body_bytes=-1)
