"""``bench.overload``'s own parts (nothing here times a server): how one run is sorted by how it ended (served,
refused, failed after it was accepted, unanswered) against a real uvicorn on loopback, the held-rate rule, and each
row's verdict against the issue's targets."""

from __future__ import annotations

import asyncio
import itertools

from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse

from bench.openloop import Target
from bench.overload import Window, holds, offer, row
from tests.support.live import LiveServer


def _app() -> FastAPI:
    app = FastAPI()

    @app.post("/served")
    async def served(request: Request) -> StreamingResponse:
        await request.body()

        async def frames() -> object:
            yield b'data: {"type":"RUN_STARTED"}\n\n'
            yield b'data: {"type":"TEXT_MESSAGE_CONTENT","delta":"hi"}\n\n'
            yield b'data: {"type":"RUN_FINISHED"}\n\n'

        return StreamingResponse(frames(), media_type="text/event-stream")  # type: ignore[arg-type]

    @app.post("/refused")
    async def refused() -> Response:
        return Response('{"detail": {"code": "OVERLOADED"}}', status_code=503, media_type="application/json",
                        headers={"Retry-After": "1", "Connection": "close"})

    @app.post("/cut")
    async def cut() -> StreamingResponse:
        async def frames() -> object:
            yield b'data: {"type":"RUN_STARTED"}\n\n'  # ends without RUN_FINISHED

        return StreamingResponse(frames(), media_type="text/event-stream")  # type: ignore[arg-type]

    @app.post("/slow")
    async def slow() -> Response:
        await asyncio.sleep(5)
        return Response("late")

    return app


def test_each_run_is_sorted_by_how_it_ended() -> None:
    with LiveServer(_app()) as server:
        def window(path: str, timeout: float = 5) -> Window:
            return asyncio.run(offer(Target(server.port, 0, path), 20, 0.25, itertools.count(), timeout))

        served, refused, cut, slow = window("/served"), window("/refused"), window("/cut"), window("/slow", 0.5)
    assert (served.offered, served.done, len(served.refused)) == (5, 5, 0)
    assert (refused.done, len(refused.refused), refused.unanswered) == (0, 5, 0)  # closed connections not reused
    assert (cut.done, cut.accepted_failed) == (0, 5)
    assert (slow.done, slow.unanswered) == (0, 5)
    assert len(served.lag) == 5


def test_the_held_rule_and_the_verdict_of_a_row() -> None:
    unloaded = Window(20, offered=60, run=[0.7] * 60)
    assert holds(Window(100, offered=10, run=[1.0] * 10), unloaded)
    assert not holds(Window(100, offered=10, run=[1.0] * 9, refused=[0.01]), unloaded)  # a refusal: not held
    assert not holds(Window(100, offered=10, run=[1.2] * 10), unloaded)  # p50 past 1.5x the unloaded one
    result = {"held": 100.0, "unloaded": unloaded}
    good = Window(200, offered=3000, run=[1.2] * 1400, refused=[0.05] * 1600)
    assert row("serve x1", result, 2, good, 15).endswith("| met |")
    slow_refusals = Window(200, offered=3000, run=[1.2] * 1400, refused=[0.2] * 1600)
    assert row("serve x1", result, 2, slow_refusals, 15).endswith("NOT met |")
    collapsed = Window(200, offered=3000, run=[9.0] * 100, accepted_failed=2900)
    assert "NOT met" in row("upstream", result, 2, collapsed, 15)
    lost = Window(200, offered=3000, run=[1.2] * 1400, refused=[0.05] * 1600, lost=1)
    assert row("serve x1", result, 2, lost, 15).endswith("NOT met |")
