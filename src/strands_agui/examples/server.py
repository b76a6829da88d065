"""All the examples behind one FastAPI app, with the browser console at ``GET /``.

- ``POST /agentic_chat``, ``/backend_tool_rendering``, ``/shared_state``, ``/agentic_generative_ui``,
  ``/human_in_the_loop``, ``/multi_agent``, ``/a2ui_generative_ui``: the AG-UI endpoints (RunAgentInput in, SSE out)
- ``GET /examples``: what the page needs to drive them, a list of
  ``{"path", "name", "description", "frontendTools", "initialState", "prompts"}`` (``frontendTools`` are the AG-UI
  ``Tool`` objects the page declares in ``RunAgentInput.tools`` and runs itself; ``prompts`` are what the page
  suggests trying)
- ``GET /ping``: liveness
- ``GET /``: the console page; the endpoints have ``inspect=True``, so the page can ask for each run's
  machine trace and replayable log (``strands_agui.server.inspector``)

Run: ``python -m strands_agui.examples.server`` (or ``strands-agui serve``) then open http://127.0.0.1:8000/
(port from ``PORT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from strands_agui.examples import (
    a2ui_generative_ui,
    agentic_chat,
    agentic_generative_ui,
    backend_tool_rendering,
    background_agents,
    human_in_the_loop,
    multi_agent,
    shared_state,
)
from strands_agui.examples._common import serve
from strands_agui.server.console import mount_console
from strands_agui.server.endpoint import add_strands_fastapi_endpoint

EXAMPLES: tuple[ModuleType, ...] = (agentic_chat, backend_tool_rendering, shared_state, agentic_generative_ui,
                                    human_in_the_loop, multi_agent, a2ui_generative_ui, background_agents)


def example_entry(module: ModuleType) -> dict[str, Any]:
    """The ``GET /examples`` entry for one example module."""
    agent = module.agent
    return {
        "path": f"/{agent.name}",
        "name": agent.name,
        "description": agent.description,
        "frontendTools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                          for tool in module.FRONTEND_TOOLS],
        "initialState": dict(getattr(module, "INITIAL_STATE", {})),
        "prompts": list(getattr(module, "PROMPTS", ())),
    }


def build_app(cors_origins: Sequence[str] = ()) -> FastAPI:
    """One app serving every example at ``/<name>``, plus ``/examples``, ``/ping`` and the console at ``/``.

    CORS is off unless ``cors_origins`` lists origins (the console is same-origin and needs none)."""
    app = FastAPI(title="strands-agui examples",
                  description="AWS Strands agents served over AG-UI (scripted model unless STRANDS_AGUI_MODEL).")
    if cors_origins:
        if "*" in cors_origins:
            raise ValueError("cors_origins must list origins; the '*' wildcard is not allowed")
        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST"],
                           allow_headers=["*"])
    entries = [example_entry(module) for module in EXAMPLES]
    for module, entry in zip(EXAMPLES, entries, strict=True):
        add_strands_fastapi_endpoint(app, module.agent, entry["path"], inspect=True)

    async def ping() -> dict[str, str]:
        return {"status": "ok"}

    async def examples() -> list[dict[str, Any]]:
        return entries

    app.add_api_route("/ping", ping, methods=["GET"], name="health")
    app.add_api_route("/examples", examples, methods=["GET"], name="examples")
    mount_console(app)
    return app


app = build_app()

if __name__ == "__main__":
    serve(app)
