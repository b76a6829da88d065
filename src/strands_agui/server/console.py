"""A browser chat console for the served examples: one self-contained HTML page (inline CSS and JS, no build
step, no network resources).

The page lists the examples from ``GET /examples``, keeps one AG-UI thread per example (threadId, messages,
state) with a small reducer, POSTs ``RunAgentInput`` to the example's path and reads the SSE response as it
streams. It runs the frontend tools it knows (``change_background``) and sends the follow-up run itself.
It is served from the same origin as the endpoints, so no CORS is involved.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

CONSOLE_PAGE = "console.html"


@cache
def console_html() -> str:
    """The console page, read from the package's ``static`` directory."""
    return (files("strands_agui.server") / "static" / CONSOLE_PAGE).read_text(encoding="utf-8")


def mount_console(app: FastAPI, path: str = "/") -> None:
    """Serve the console page at ``GET path``. The page expects ``GET /examples`` on the same app."""
    page = console_html()

    async def console() -> HTMLResponse:
        return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    app.add_api_route(path, console, methods=["GET"], response_class=HTMLResponse, include_in_schema=False,
                      name="strands_agui_console")


__all__ = ["mount_console", "console_html"]
