"""One gated agent (``tests/support/live_app.py``'s) behind the four serving modes, for the browser test of Stop
(``strands-agui serve --app tests.console.stop_app:app --sessions DIR``): ``/plain`` (SSE), ``/threads`` (threads
kept on the server), ``/resumable`` (a resumable run) and ``/threads_resumable`` (both: what ``docs/console.md``
prescribes for a reload mid-run). Each says ``SO_FAR``, calls ``wait_for_gate`` (which returns once the file
``$LIVE_APP_GATE`` exists), then says ``FINAL``. Every endpoint counts its runs by outcome at ``GET /metrics``
(``strands_agui_runs_total{agent=<path's name>}``): how a test reads, from the server, how a run ended."""

from __future__ import annotations

from fastapi import FastAPI
from strands import Agent

from strands_agui import StrandsAgent
from strands_agui.server.app import add_ping
from strands_agui.server.console.page import mount_console
from strands_agui.server.endpoint import add_strands_fastapi_endpoint
from strands_agui.tooling.scripted import ScriptedModel
from tests.support.live_app import FINAL, SO_FAR, gated, wait_for_gate

__all__ = ["FINAL", "MODES", "SO_FAR", "app"]

MODES = {"plain": (False, False), "threads": (True, False), "resumable": (False, True),
         "threads_resumable": (True, True)}  # name -> (threads, resumable)


def _agent(name: str, threads: bool) -> StrandsAgent:
    model = ScriptedModel(gated)
    return StrandsAgent(Agent(model=model, tools=[wait_for_gate], callback_handler=None), name=name, threads=threads)


app = FastAPI()
add_ping(app)
for _name, (_threads, _resumable) in MODES.items():
    add_strands_fastapi_endpoint(app, _agent(_name, _threads), f"/{_name}", resumable=_resumable, metrics=True,
                                 inspect=True)
mount_console(app)
