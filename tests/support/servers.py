"""Live servers for tests (uvicorn on 127.0.0.1, see ``tests/support/live.py``), raw connections to them, and the guard
that no test makes a server log an error unless it says so."""

from __future__ import annotations

import gc
import json
import logging
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from strands_agui.server.app import create_strands_app
from tests.support.agents import echo_model, strands_agent
from tests.support.live import LiveServer


def tolerates(*loggers: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Mark a test whose server may log errors from ``loggers`` (see :func:`no_server_errors`)."""

    def mark(test: Callable[..., None]) -> Callable[..., None]:
        test.tolerated_loggers = frozenset(loggers)  # type: ignore[attr-defined]
        return test

    return mark


@pytest.fixture
def no_server_errors(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """No test may make the server log an error (uvicorn's "Exception in ASGI application", Strands'
    OpenTelemetry "Failed to detach context", ...) unless it says so with :func:`tolerates`. A module asks for it
    with ``pytestmark = pytest.mark.usefixtures("no_server_errors")``.

    What earlier tests of this worker left to the garbage collector (a Strands background task a stopped run's
    loop closed on logs "Task was destroyed but it is pending!" when collected) is collected before the test, so
    an app's own ``gc.collect()`` at startup (``freeze_after_startup``) cannot put it in this test's records."""
    gc.collect()
    yield
    tolerated = getattr(request.function, "tolerated_loggers", frozenset())
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR and r.name not in tolerated]
    assert not errors, [f"{r.name}: {r.getMessage()}" for r in errors]


@pytest.fixture(scope="module")
def echo_server() -> Iterator[LiveServer]:
    """An app serving :func:`echo_model` at ``/`` with a 4096-byte body limit, one per test module."""
    with LiveServer(create_strands_app(strands_agent(echo_model()), max_body_bytes=4096)) as server:
        yield server


EXAMPLE_PROMPTS = {
    "/agentic_chat": "please make the background blue",
    "/backend_tool_rendering": "what is the weather in Paris?",
    "/shared_state": "make it a vegetarian pasta recipe",
    "/agentic_generative_ui": "plan a trip: book flights, pack, and then fly",
    "/human_in_the_loop": "book me a flight to Porto",
    "/multi_agent": "what do we know about the billing service?",
    "/a2ui_generative_ui": "show me a checklist for a trip: passport, tickets and charger",
    "/agentic_chat_reasoning": "What is 17 * 23?",
    "/tool_based_generative_ui": "Create a haiku about the ocean.",
    "/interrupt": "Book an intro call with the sales team to discuss pricing.",
    "/predictive_state_updates": "Please write a story about a mermaid named Luna.",
    "/agentic_chat_multimodal": "Describe what you see in the image I upload.",
    "/a2ui_fixed_schema": "Find flights from SFO to JFK for next Tuesday.",
    "/a2ui_recovery": "Compare 3 luxury hotels with ratings and prices.",
    "/background_agents": "write a report on sales",
}
"""What each example is asked (its route -> the first user message)."""


def example_input(entry: dict[str, Any]) -> dict[str, Any]:
    """A RunAgentInput for one entry of the examples server's ``/examples`` list: its prompt, state and tools."""
    return {"threadId": f"thread{entry['path'].replace('/', '-')}", "runId": "run-1",
            "messages": [{"id": "user-1", "role": "user", "content": EXAMPLE_PROMPTS[entry["path"]]}],
            "state": entry.get("initialState", {}), "tools": entry["frontendTools"], "context": [],
            "forwardedProps": {}}


@contextmanager
def served_examples(sessions: Path | None = None, *, paced: bool = True) -> Iterator[LiveServer]:
    """The examples server (``examples.demo.build_app()``: every example, inspection on), live; ``sessions``:
    its paused threads' directory (``STRANDS_AGUI_SESSIONS``) while it is built and served. ``paced=False``: each
    example's agent is its ``build_agent`` with ``STRANDS_AGUI_SCRIPTED_DELAY=0``: the same scripts and events
    without the pace a browser needs to show streaming."""
    from strands_agui.examples.demo import build_app

    with pytest.MonkeyPatch.context() as patch:
        if sessions is not None:
            patch.setenv("STRANDS_AGUI_SESSIONS", str(sessions))
        with pytest.MonkeyPatch.context() as agents:  # the examples' own agents are back once the app is built
            if not paced:
                unpace_examples(agents)
            app = build_app()
        with LiveServer(app) as server:
            yield server


def unpace_examples(patch: pytest.MonkeyPatch) -> None:
    """Each example module's ``agent``, while ``patch`` lasts, built by its ``build_agent`` with no scripted delay
    (``examples.demo.build_app`` reads ``module.agent``)."""
    from strands_agui.examples.demo import EXAMPLES

    env = {**os.environ, "STRANDS_AGUI_SCRIPTED_DELAY": "0"}
    for module in EXAMPLES:
        agent = module.build_agent(env)  # the plan's own pace stays: its config is the module's (a log names it)
        assert agent.name == module.agent.name, module.__name__
        patch.setattr(module, "agent", agent)


# ----------------------------------------------------------------------------------------- raw connections


def open_stream(port: int, body: dict[str, Any], accept: str = "text/event-stream",
                receive_buffer: int | None = None) -> socket.socket:
    """POST ``body`` on a new connection, leaving the response to be read. ``receive_buffer`` sets a small
    ``SO_RCVBUF`` before connecting, so a client that does not read stalls the server soon."""
    conn = socket.socket()
    if receive_buffer is not None:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    conn.settimeout(5)
    conn.connect(("127.0.0.1", port))
    payload = json.dumps(body).encode()
    conn.sendall(
        b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nAccept: %s\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (accept.encode(), len(payload), payload)
    )
    return conn


def read_until(conn: socket.socket, marker: bytes, count: int = 1) -> bytes:
    received = b""
    while received.count(marker) < count:
        chunk = conn.recv(65536)
        assert chunk, f"connection closed early: {received!r}"
        received += chunk
    return received


def wait_until(predicate: Callable[[], bool], seconds: float = 2.0) -> float:
    """Seconds until ``predicate`` held; fails after ``seconds``."""
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < seconds, "timed out"
        time.sleep(0.01)
    return time.monotonic() - start
