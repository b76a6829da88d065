"""A resumable run whose reader stops reading (the driver's stall detection, under uvicorn on loopback) detaches
as it does on a disconnect: it goes on into its event store, and a reconnect with ``Last-Event-ID`` gets the
rest exactly once, to RUN_FINISHED. (A run that is not resumable is cancelled instead: tests/test_load.py.)"""

from __future__ import annotations

import logging
import threading

import pytest
from strands import Agent
from strands.hooks import AfterInvocationEvent

from strands_agui import StrandsAgent
from strands_agui.server.endpoint import create_strands_app
from strands_agui.server.resumable import Resumable
from strands_agui.tooling.scripted import ScriptedModel, Text
from tests.live import LiveServer
from tests.oracles import assert_valid_sse
from tests.support.resumable import frames, reconnect, run_body
from tests.support.servers import open_stream, read_until, wait_until

PIECES = 200  # deltas of 10 KB: far more than the socket buffers of a reader that stops (about 100 KB)
STALLED = "the client read nothing for"


def dechunk(raw: bytes) -> bytes:
    """The body of a chunked HTTP/1.1 response as far as it was received (a cut last chunk: its bytes so far)."""
    rest, body = raw.split(b"\r\n\r\n", 1)[1], b""
    while b"\r\n" in rest:
        size, rest = rest.split(b"\r\n", 1)
        n = int(size, 16)
        body, rest = body + rest[:n], rest[n + 2:]
        if n == 0 or len(rest) == 0:
            break
    return body


def test_a_stalled_reader_detaches_the_run_and_a_reconnect_gets_the_rest_once(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="strands_agui.server.streaming")
    text = " ".join("y" * 10_000 for _ in range(PIECES))
    ended = threading.Event()
    template = Agent(model=ScriptedModel([[Text(text)]], delay=0.0001), callback_handler=None)
    template.hooks.add_callback(AfterInvocationEvent, lambda event: ended.set())
    app = create_strands_app(StrandsAgent(template), keepalive_seconds=0.1,  # a stall: 0.2 s without progress
                             resumable=Resumable(detach_seconds=30))
    with LiveServer(app, send_buffer=16384) as server:
        conn = open_stream(server.port, run_body("stall-1"), receive_buffer=4096)
        received = read_until(conn, b"yyyy")  # the first delta; then this client reads no more
        wait_until(lambda: STALLED in caplog.text, seconds=30)
        held = dechunk(received)
        held = held[:held.rfind(b"\n\n") + 2]  # the complete frames the client holds
        last = frames(held)[-1][0]
        assert last is not None
        rest = reconnect(server.url, "stall-1", last)
        assert ended.wait(10)
        conn.close()
    assert rest.status_code == 200
    joined = frames(held + rest.content)
    assert [i for i, _ in joined] == [f"stall-1:{n}" for n in range(1, len(joined) + 1)]  # each event once
    assert joined[-1][1]["type"] == "RUN_FINISHED", joined[-1]
    assert "".join(e.get("delta", "") for _, e in joined if e["type"] == "TEXT_MESSAGE_CONTENT") == text
    report = assert_valid_sse(held + rest.content, fail_on_run_error=True)
    assert report["messages"][-1]["content"] == text  # what the user ends up holding: the whole answer
