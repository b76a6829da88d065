"""An agent whose run waits in a tool until the test opens a gate, for the browser tests of a reload mid-run
(``strands-agui serve --app tests.support.live_app:app --threads --resumable``): ``/gated`` says ``SO_FAR``, calls
``wait_for_gate`` (which returns once the file ``$LIVE_APP_GATE`` exists), then says ``FINAL``."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from fastapi import FastAPI
from strands import Agent, tool

from strands_agui import StrandsAgent
from strands_agui.server.app import add_ping
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel, Text, ToolUse

SO_FAR = "Checking the forecast for you now."
FINAL = "The forecast says sunny skies all week."
GATE_SECONDS = 120.0


@tool
async def wait_for_gate() -> str:
    """Wait until the test opens the gate (the file ``$LIVE_APP_GATE`` exists)."""
    gate, deadline = os.environ.get("LIVE_APP_GATE", ""), time.monotonic() + GATE_SECONDS
    while gate and not os.path.exists(gate) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return "the forecast: sunny"


def gated(messages: Any) -> list[Any]:
    last = messages[-1]["content"]
    if any("toolResult" in block for block in last):
        return [Text(FINAL, chunks=4)]
    return [Text(SO_FAR, chunks=4), ToolUse("wait_for_gate", {})]


app = FastAPI()
add_ping(app)
add_strands_fastapi_endpoint(app, StrandsAgent(Agent(model=ScriptedModel(gated), tools=[wait_for_gate],
                                                     callback_handler=None), name="gated"), "/gated")
