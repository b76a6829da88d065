"""``strands-agui serve --max-runs N`` and ``--no-admission`` (issue 38): the operator's admission control.

A served worker with ``--max-runs 1`` holding one run (``tests/support/live_app.py``'s ``/gated``, waiting in a tool
until the test opens its gate) answers a second run at once, 503 ``OVERLOADED`` with ``Retry-After``, and serves
the first whole; with ``--no-admission`` it serves both. Each bad value is one line and exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from strands_agui.environment import MAX_RUNS_ENV, NO_ADMISSION_ENV
from strands_agui.server.request.early_refusal import PROTOCOL
from tests.support.cli import assert_explains, cli_in_process
from tests.support.live_app import FINAL
from tests.support.wire import run_input, sse_events
from tests.support.workers import serve

GATED = "/gated"


@contextmanager
def started(client: httpx.Client, run_id: str) -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """A run of ``/gated`` started (its first frame read: admitted, in flight, waiting at the gate); yields what
    reads the rest of its stream, once the gate is open, as its events."""
    with client.stream("POST", GATED, json=run_input("forecast?", run_id=run_id),
                       headers={"Accept": "text/event-stream"}) as run:
        assert run.status_code == 200
        chunks = run.iter_raw()
        first = next(chunks)
        yield lambda: sse_events((first + b"".join(chunks)).decode())


@contextmanager
def held_run(client: httpx.Client, gate: Path) -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """:func:`started` for a first run, the gate opened on the way out however the block ends."""
    try:
        with started(client, "held") as rest:
            yield rest
    finally:
        gate.touch()


@pytest.mark.slow
def test_serve_max_runs_1_refuses_a_second_concurrent_run_with_retry_after(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    with serve(tmp_path / "sessions", 1, "tests.support.live_app:app", "--max-runs", "1",
               env={"LIVE_APP_GATE": str(gate)}) as url, httpx.Client(base_url=url, timeout=30) as client:
        with held_run(client, gate) as held:
            refused = client.post(GATED, json=run_input("again?", run_id="second"))
            assert refused.status_code == 503, refused.text
            assert refused.headers["Retry-After"] == "1"
            detail = refused.json()["detail"]
            assert detail["code"] == "OVERLOADED" and detail["limit"] == 1 and detail["inFlight"] == 1, detail
            gate.touch()
            events = held()
        assert events[-1]["type"] == "RUN_FINISHED"
        assert FINAL in "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        ready = client.post(GATED, json=run_input("now?", run_id="third"))  # the held run ended: room again
        assert ready.status_code == 200 and sse_events(ready.text)[-1]["type"] == "RUN_FINISHED"


@pytest.mark.slow
def test_serve_no_admission_serves_the_second_run(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    with serve(tmp_path / "sessions", 1, "tests.support.live_app:app", "--no-admission",
               env={"LIVE_APP_GATE": str(gate)}) as url, httpx.Client(base_url=url, timeout=30) as client:
        with held_run(client, gate) as held:
            with started(client, "second") as second:  # admitted while the first is in flight
                gate.touch()
                assert second()[-1]["type"] == "RUN_FINISHED"
            assert held()[-1]["type"] == "RUN_FINISHED"


@pytest.mark.parametrize(("argv", "fragments"), [
    (["--max-runs", "0"], ("--max-runs 0: give a whole number of runs >= 1",)),
    (["--max-runs", "-3"], ("--max-runs -3",)),
    (["--max-runs", "two"], ("--max-runs: invalid int value: 'two'",)),
    (["--max-runs", "2", "--no-admission"], ("--max-runs 2 with --no-admission", "drop one of them")),
])
def test_a_bad_admission_flag_is_one_line_and_exit_2(argv: list[str], fragments: tuple[str, ...],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MAX_RUNS_ENV, raising=False)
    monkeypatch.delenv(NO_ADMISSION_ENV, raising=False)
    assert_explains(cli_in_process(["serve", "--port", "0", *argv]), *fragments)


def test_a_bad_admission_variable_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_RUNS_ENV, "many")
    assert_explains(cli_in_process(["serve", "--port", "0"]), f"{MAX_RUNS_ENV}='many': give a whole number >= 1")
    monkeypatch.setenv(MAX_RUNS_ENV, "2")
    monkeypatch.setenv(NO_ADMISSION_ENV, "1")
    assert_explains(cli_in_process(["serve", "--port", "0"]), NO_ADMISSION_ENV, MAX_RUNS_ENV)


def test_serve_runs_on_asyncios_own_loop_with_the_early_refusing_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    """Admission control's lag threshold is measured on asyncio's loop; uvicorn's ``loop="auto"`` takes uvloop
    wherever it is installed (``uvicorn[standard]``), and there the same threshold under-sheds. ``serve``'s uvicorn
    is told ``asyncio``, and the protocol that answers a refused run before the app (``early_refusal.py``); an
    embedding app's own ``uvicorn.run`` is its choice (``docs/capacity.md``)."""
    import uvicorn

    from strands_agui.tooling import serving

    seen: dict[str, Any] = {}

    class Stop(Exception):
        pass

    def config(_self: object, app: object, **options: Any) -> None:
        seen.update(options)
        raise Stop

    monkeypatch.setattr(uvicorn.Config, "__init__", config)
    with pytest.raises(Stop):
        serving.run_uvicorn(object(), host="127.0.0.1", port=1, workers=2)
    assert seen["loop"] == "asyncio" and seen["workers"] == 2
    assert seen["http"] == PROTOCOL  # uvicorn's httptools protocol, refusing a run before the app
    with pytest.raises(Stop):
        serving.run_uvicorn(object(), loop="uvloop", http="h11")  # an explicit choice is kept
    assert seen["loop"] == "uvloop" and seen["http"] == "h11"
