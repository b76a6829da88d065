"""The benchmark's server: one Strands agent per workload, served by each adapter and by the floor.

``python -m bench.apps --port N`` serves, on 127.0.0.1:

* ``POST /ours/{chat,tool}``: strands-agui (``strands_agui.add_strands_fastapi_endpoint``)
* ``POST /upstream/{chat,tool}``: ``ag_ui_strands==1.0.2`` (its own ``add_strands_fastapi_endpoint``)
* ``POST /floor/{chat,tool}``: no adapter at all (:func:`add_floor`): a fresh ``strands.Agent`` per run, its
  text (and tool-input) deltas written as bare SSE frames; what serving the agent costs before any AG-UI work
* ``GET /ping``

``--adapter ours|upstream|floor`` serves only that one (``make bench`` runs one process each).
``bench.apps:served`` is ours alone on the paced model, for ``strands-agui serve --app bench.apps:served``.

Every server gets the same agent parts (model object, tools) for a workload. ``--model yielding`` (the
default) yields to the event loop before each chunk without waiting any wall time: what is measured is the
adapters and the server, not a model. ``--model paced`` waits as a provider does: the first chunk after
``FIRST_CHUNK_SECONDS``, then one every ``CHUNK_SECONDS`` (the open loop, ``bench/openloop.py``).

``--endpoint KEY=VALUE`` (repeatable) passes a keyword to our ``add_strands_fastapi_endpoint`` and
``--agent KEY=VALUE`` one to our ``StrandsAgent``: a JSON value, ``@module:name`` for an object to import, or
else the string. That is how a setting is measured off and on (``bench.http.keywords``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import uvicorn
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import StreamingResponse
from strands import Agent, tool

from bench.http import ADAPTERS, keywords
from strands_agui import StrandsAgent
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.request.admission import AdmissionPolicy
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse

CHAT_DELTAS = 40


def answer(deltas: int = CHAT_DELTAS) -> str:
    """The chat workload's answer: ``deltas`` words, one text delta each."""
    return " ".join(f"word{i}" for i in range(deltas))


ANSWER = answer()
FIRST_CHUNK_SECONDS = 0.2  # the paced model: a provider's time to the first chunk ...
CHUNK_SECONDS = 0.01  # ... then one chunk every 10 ms (100 chunks/s)
SERVED = (*ADAPTERS, "floor")
MODELS = ("yielding", "paced")


class YieldingModel(ScriptedModel):
    """A ScriptedModel that awaits the loop once per chunk, like a model reading a socket."""

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterable[Any]:  # type: ignore[override]
        async for chunk in super().stream(*args, **kwargs):
            await asyncio.sleep(0)
            yield chunk


class PacedModel(ScriptedModel):
    """A ScriptedModel at a provider's pace: each call's first chunk after ``first`` seconds, then one every
    ``gap`` seconds."""

    def __init__(self, script: Any, first: float = FIRST_CHUNK_SECONDS, gap: float = CHUNK_SECONDS) -> None:
        super().__init__(script)
        self.first, self.gap = first, gap

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterable[Any]:  # type: ignore[override]
        wait = self.first
        async for chunk in super().stream(*args, **kwargs):
            await asyncio.sleep(wait)
            wait = self.gap
            yield chunk


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"{city}: sunny, 21 C"


def _tool_turn(messages: list[dict[str, Any]]) -> list[Any]:
    last = messages[-1]["content"] if messages else []
    if any("toolResult" in block for block in last):
        return [Text("It is sunny in Paris, 21 C.")]
    return [ToolUse("weather", {"city": "Paris"})]


Parts = tuple[ScriptedModel, list[Any]]  # a workload's model and tools


def workloads(model: str = "yielding", deltas: int = CHAT_DELTAS) -> dict[str, Parts]:
    """The agent parts of each workload (``model``: one of ``MODELS``; ``deltas``: the chat answer's text deltas)."""
    kind = PacedModel if model == "paced" else YieldingModel
    text = ANSWER if deltas == CHAT_DELTAS else answer(deltas)
    return {
        "chat": (kind(lambda _messages: [Text(text)]), []),
        "tool": (kind(_tool_turn), [weather]),
    }


def principal() -> str:
    """An ``auth`` dependency that names every caller ``bench-user``: principals on
    (``--endpoint auth=@bench.apps:principal``)."""
    return "bench-user"


def add_floor(app: FastAPI, path: str, parts: Parts) -> None:
    """``POST path``: the floor. The body's last message is the prompt of a fresh ``strands.Agent`` built from
    ``parts``; each text or tool-input delta is written as one bare ``data:`` frame, then
    ``{"type":"RUN_FINISHED"}``. No
    validation, no AG-UI events, no adapter: the frames are written by hand on purpose, being the floor."""

    async def frames(prompt: str) -> AsyncIterator[bytes]:
        agent = Agent(model=parts[0], tools=parts[1], callback_handler=None)
        async for event in agent.stream_async(prompt):
            if "data" in event or event.get("type") == "tool_use_stream":
                delta = event["data"] if "data" in event else event["delta"]["toolUse"]["input"]
                yield b"data: " + json.dumps({"delta": delta}).encode() + b"\n\n"
        yield b'data: {"type":"RUN_FINISHED"}\n\n'

    async def floor_run(request: Request) -> StreamingResponse:
        body = json.loads(await request.body())
        return StreamingResponse(frames(body["messages"][-1]["content"]), media_type="text/event-stream")

    app.add_route(path, floor_run, methods=["POST"])


def create_app(adapters: tuple[str, ...] = ADAPTERS, model: str = "yielding", endpoint: dict[str, Any] | None = None,
               agent: dict[str, Any] | None = None, deltas: int = CHAT_DELTAS) -> FastAPI:
    """Every workload served by ``adapters`` (ours and upstream by default); ``endpoint`` and ``agent``: keywords
    of our ``add_strands_fastapi_endpoint`` and ``StrandsAgent``; ``deltas``: the chat answer's text deltas."""
    app = FastAPI()
    for name, parts in workloads(model, deltas).items():
        template = Agent(model=parts[0], tools=parts[1], callback_handler=None)
        if "ours" in adapters:
            ours = StrandsAgent(template, name=f"ours_{name}", **(agent or {}))
            add_strands_fastapi_endpoint(app, ours, f"/ours/{name}", **(endpoint or {}))
        if "upstream" in adapters:
            import ag_ui_strands  # the bench extra: never a runtime dependency

            upstream = ag_ui_strands.StrandsAgent(template, name=f"upstream_{name}")
            ag_ui_strands.add_strands_fastapi_endpoint(app, upstream, f"/upstream/{name}")
        if "floor" in adapters:
            add_floor(app, f"/floor/{name}", parts)

    @app.get("/ping")
    async def ping() -> dict[str, str]:
        return {"status": "ok"}

    return app


def __getattr__(name: str) -> FastAPI:
    """``bench.apps:served``: ours alone on the paced model, what ``strands-agui serve --app bench.apps:served``
    serves (``bench.openloop --serve-workers``): each uvicorn worker imports it and builds its own; ``serve``'s
    ``--threads``, ``--resumable`` and ``--events`` reach the endpoint through the serve environment.
    ``$BENCH_ADMISSION=off``: admission control off (``bench.overload`` measures the rate a server holds so);
    ``fixed:N``: at most N runs in flight and no limit learned (``bench.overload --limit N``)."""
    if name == "served":
        admission = os.environ.get("BENCH_ADMISSION", "on")
        endpoint: dict[str, Any] | None = None
        if admission == "off":
            endpoint = {"admission": None}
        elif admission.startswith("fixed:"):
            endpoint = {"admission": AdmissionPolicy(adaptive=False, max_runs=int(admission.removeprefix("fixed:")))}
        return create_app(("ours",), "paced", endpoint)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--adapter", choices=SERVED, help="serve only this one (default: ours and upstream)")
    parser.add_argument("--model", choices=MODELS, default="yielding")
    parser.add_argument("--endpoint", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--agent", action="append", default=[], metavar="KEY=VALUE")
    opts = parser.parse_args()
    app = create_app((opts.adapter,) if opts.adapter else ADAPTERS, opts.model, keywords(opts.endpoint),
                     keywords(opts.agent))
    # $BENCH_HTTP: uvicorn's HTTP implementation ("h11" for an A/B against httptools, a dependency since issue 38)
    uvicorn.run(app, host="127.0.0.1", port=opts.port, log_level="warning", access_log=False,
                http=os.environ.get("BENCH_HTTP", "auto"))


if __name__ == "__main__":
    main()
