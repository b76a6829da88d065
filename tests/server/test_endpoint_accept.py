"""Content negotiation by Accept (RFC 9110): what gets SSE, what is 406 naming what we produce.

Over real HTTP: uvicorn on 127.0.0.1 (:class:`~tests.support.live.LiveServer`); helpers in ``tests/support/``.
"""

from __future__ import annotations

import httpx
import pytest

from strands_agui.server.request.negotiation import accepts
from tests.support.live import LiveServer
from tests.support.wire import parse_sse, post_sse, run_input, types

pytestmark = pytest.mark.usefixtures("no_server_errors")


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "",
        "text/event-stream",
        "*/*",
        "text/*",
        "TEXT/Event-Stream; charset=utf-8",
        "application/json, text/event-stream;q=0.5",
        "application/json;q=1, */*;q=0.1",
        "text/*;q=0, text/event-stream",
        "text/event-stream;q=oops",
    ],
)
def test_acceptable_accept_headers_get_sse(echo_server: LiveServer, accept: str | None) -> None:
    headers = {"Content-Type": "application/json"}
    if accept is not None:
        headers["Accept"] = accept
    request = httpx.Request("POST", echo_server.url + "/", json=run_input(), headers=headers)
    assert ("accept" in request.headers) is (accept is not None)  # Client.send adds no default Accept
    with httpx.Client() as client:
        response = client.send(request)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    assert types(parse_sse(response.content)[0])[-1] == "RUN_FINISHED"


@pytest.mark.parametrize(
    "accept",
    [
        "application/json",
        "text/html, application/xml;q=0.9",
        "text/event-stream;q=0",
        "text/event-stream;q=0, application/vnd.ag-ui.event+proto;q=0, */*",
        "text/*;q=0",
        "nonsense",
    ],
)
def test_unproducible_accept_is_406_naming_what_we_produce(echo_server: LiveServer, accept: str) -> None:
    response = post_sse(echo_server.url + "/", run_input(), {"Accept": accept, "Content-Type": "application/json"})
    assert response.status_code == 406
    assert response.headers["content-type"] == "application/json"
    assert "text/event-stream, application/vnd.ag-ui.event+proto" in response.json()["detail"]


def test_repeated_accept_headers_form_one_list(echo_server: LiveServer) -> None:
    headers = httpx.Headers([("Content-Type", "application/json"), ("Accept", "application/json"),
                             ("Accept", "text/event-stream;q=0.2")])
    with httpx.Client() as client:
        response = client.post(echo_server.url + "/", json=run_input(), headers=headers)
    assert response.status_code == 200


def test_accepts_follows_rfc_9110() -> None:
    assert accepts(None) and accepts("  ")
    assert accepts("application/json;q=0.9, text/event-stream;q=0.001")
    assert not accepts("text/event-stream;q=0.000, text/*;q=1")  # most specific range wins
    assert accepts("text/event-stream;level=1;q=0.3")
    assert not accepts("application/*, image/png")
    assert accepts("text/plain", "text/plain") and not accepts("text/plain")
