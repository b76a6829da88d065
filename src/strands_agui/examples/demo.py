"""All the examples behind one FastAPI app, with the browser console at ``GET /``.

- ``POST /agentic_chat``, ``/backend_tool_rendering``, ``/shared_state``, ``/agentic_generative_ui``,
  ``/human_in_the_loop``, ``/multi_agent``, ``/a2ui_generative_ui``, and the Dojo's Strands features
  ``/agentic_chat_reasoning``, ``/tool_based_generative_ui``, ``/interrupt``, ``/predictive_state_updates``,
  ``/agentic_chat_multimodal``, ``/a2ui_fixed_schema``, ``/a2ui_recovery``: the AG-UI endpoints (RunAgentInput
  in, SSE out)
- ``GET /examples`` (``mount_console`` lists the endpoints): what the page needs to drive them, a list of
  ``{"path", "name", "description", "frontendTools", "initialState", "prompts", "threads"}`` (``frontendTools`` are
  the AG-UI ``Tool`` objects the page declares in ``RunAgentInput.tools`` and runs itself; ``prompts`` are what the page
  suggests trying)
- ``GET /ping``: liveness
- ``GET /``: the console page; the endpoints have ``inspect=True``, so the page can ask for each run's
  machine trace and replayable log (``strands_agui.server.console.inspector``)

Run: ``python -m strands_agui.examples.demo`` (or ``strands-agui serve``) then open http://127.0.0.1:8000/
(port from ``PORT``).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from strands_agui import add_strands_fastapi_endpoint, mount_console
from strands_agui.examples import (
    a2ui_fixed_schema,
    a2ui_generative_ui,
    a2ui_recovery,
    agentic_chat,
    agentic_chat_multimodal,
    agentic_chat_reasoning,
    agentic_generative_ui,
    backend_tool_rendering,
    background_agents,
    human_in_the_loop,
    interrupt,
    multi_agent,
    predictive_state_updates,
    shared_state,
    tool_based_generative_ui,
)
from strands_agui.examples._common import serve

EXAMPLES: tuple[ModuleType, ...] = (agentic_chat, backend_tool_rendering, shared_state, agentic_generative_ui,
                                    human_in_the_loop, multi_agent, a2ui_generative_ui, agentic_chat_reasoning,
                                    tool_based_generative_ui, interrupt, predictive_state_updates,
                                    agentic_chat_multimodal, a2ui_fixed_schema, a2ui_recovery,
                                    background_agents)


def endpoint_options(module: ModuleType) -> dict[str, Any]:
    """What the console lists for one example besides its agent's name and description (``mount_console``)."""
    return {"frontend_tools": list(module.FRONTEND_TOOLS), "initial_state": dict(getattr(module, "INITIAL_STATE", {})),
            "prompts": list(getattr(module, "PROMPTS", ()))}


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
    for module in EXAMPLES:
        add_strands_fastapi_endpoint(app, module.agent, f"/{module.agent.name}", inspect=True,
                                     **endpoint_options(module))

    async def ping() -> dict[str, str]:
        return {"status": "ok"}

    app.add_api_route("/ping", ping, methods=["GET"], name="health")
    mount_console(app)  # GET /examples lists the endpoints above
    return app


app = build_app()

if __name__ == "__main__":
    serve(app)
