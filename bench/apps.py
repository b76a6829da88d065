"""The benchmark's server: one Strands agent per workload, served by both adapters in one process.

``python -m bench.apps --port N`` serves, on 127.0.0.1:

* ``POST /ours/{chat,tool}``: strands-agui (``strands_agui.add_strands_fastapi_endpoint``)
* ``POST /upstream/{chat,tool}``: ``ag_ui_strands==1.0.2`` (its own ``add_strands_fastapi_endpoint``)
* ``GET /ping``

``--adapter ours`` or ``--adapter upstream`` serves only that adapter (``make bench`` runs one process each).

Both adapters get the same template ``strands.Agent`` (same model object, same tools) for a workload.
The model is scripted and yields to the event loop before each chunk, as a network-bound model does,
without waiting any wall time: what is measured is the adapters and the server, not a model.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterable
from typing import Any

import uvicorn
from fastapi import FastAPI
from strands import Agent, tool

from bench.http import ADAPTERS
from strands_agui import StrandsAgent
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.server.streaming import COALESCE_SECONDS
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse

CHAT_DELTAS = 40
ANSWER = " ".join(f"word{i}" for i in range(CHAT_DELTAS))


class YieldingModel(ScriptedModel):
    """A ScriptedModel that awaits the loop once per chunk, like a model reading a socket."""

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterable[Any]:  # type: ignore[override]
        async for chunk in super().stream(*args, **kwargs):
            await asyncio.sleep(0)
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


def templates() -> dict[str, Agent]:
    """The template agent of each workload."""
    return {
        "chat": Agent(model=YieldingModel(lambda _messages: [Text(ANSWER)]), callback_handler=None),
        "tool": Agent(model=YieldingModel(_tool_turn), tools=[weather], callback_handler=None),
    }


def create_app(coalesce: float = COALESCE_SECONDS, adapters: tuple[str, ...] = ADAPTERS) -> FastAPI:
    """Every workload served by ``adapters`` (both by default); ``coalesce`` is our endpoint's
    ``coalesce_seconds``."""
    app = FastAPI()
    for name, template in templates().items():
        if "ours" in adapters:
            add_strands_fastapi_endpoint(app, StrandsAgent(template, name=f"ours_{name}"), f"/ours/{name}",
                                         coalesce_seconds=coalesce)
        if "upstream" in adapters:
            import ag_ui_strands  # the bench extra: never a runtime dependency

            upstream = ag_ui_strands.StrandsAgent(template, name=f"upstream_{name}")
            ag_ui_strands.add_strands_fastapi_endpoint(app, upstream, f"/upstream/{name}")

    @app.get("/ping")
    async def ping() -> dict[str, str]:
        return {"status": "ok"}

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--coalesce", type=float, default=COALESCE_SECONDS)
    parser.add_argument("--adapter", choices=ADAPTERS, help="serve only this adapter (default: both)")
    opts = parser.parse_args()
    app = create_app(opts.coalesce, (opts.adapter,) if opts.adapter else ADAPTERS)
    uvicorn.run(app, host="127.0.0.1", port=opts.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
