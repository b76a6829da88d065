"""The browser console for the served examples: a page, its scripts and styles, and the machine's diagram.

Everything is in the package's ``static`` directory (no build step, no network resources):

* ``console.html`` (markup), ``console.css``;
* ES modules: ``agui.js`` (SSE reader and the AG-UI reducer, mirroring ``@ag-ui/client``), ``markdown.js``
  (safe markdown), ``views.js`` (messages, tool cards, subagents, interrupts), ``chart.js`` (charts a tool
  result asks for, as SVG built in the page), ``state.js`` (state views),
  ``machine.js`` (the live machine and the inspector), ``console.js`` (threads, runs, frontend tools),
  ``threads.js`` (a reload restores the thread through the thread API; regenerate);
* ``vendor/``: markdown-it and fast-json-patch (MIT, licences beside them);
* ``run_machine.svg``: the run machine drawn from ``core.machine.TRANSITIONS`` (``tooling.diagrams``).

The page lists the examples from ``GET /examples``, keeps one AG-UI thread per example and POSTs
``RunAgentInput`` to the example's path. Only the files named in :data:`ASSETS` are served (no path is ever
joined from the request), and the page is sent with a Content-Security-Policy that allows scripts, styles,
images and requests from its own origin only: text a model or tool wrote can never run as script or make
the browser fetch another address.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, Response

CONSOLE_PAGE = "console.html"
ASSET_PREFIX = "/console/"
ASSETS: dict[str, str] = {
    "console.css": "text/css; charset=utf-8",
    "agui.js": "text/javascript; charset=utf-8",
    "markdown.js": "text/javascript; charset=utf-8",
    "views.js": "text/javascript; charset=utf-8",
    "chart.js": "text/javascript; charset=utf-8",
    "feedback.js": "text/javascript; charset=utf-8",
    "state.js": "text/javascript; charset=utf-8",
    "machine.js": "text/javascript; charset=utf-8",
    "console.js": "text/javascript; charset=utf-8",
    "threads.js": "text/javascript; charset=utf-8",
    "vendor/markdown-it.min.js": "text/javascript; charset=utf-8",
    "vendor/fast-json-patch.min.js": "text/javascript; charset=utf-8",
    "run_machine.svg": "image/svg+xml",
}
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


@cache
def static_text(name: str) -> str:
    """A file of the package's ``static`` directory."""
    return (files("strands_agui.server") / "static" / name).read_text(encoding="utf-8")


def console_html() -> str:
    """The console page."""
    return static_text(CONSOLE_PAGE)


def mount_console(app: FastAPI, path: str = "/") -> None:
    """Serve the console page at ``GET path`` and its files under ``/console/``. The page expects
    ``GET /examples`` on the same app."""
    page = console_html()

    async def console() -> HTMLResponse:
        return HTMLResponse(page, headers={**_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY})

    async def asset(name: str) -> Response:
        media_type = ASSETS.get(name)
        if media_type is None:
            raise HTTPException(status_code=404, detail=f"the console has no file {name!r}")
        return Response(static_text(name), media_type=media_type, headers=_HEADERS)

    app.add_api_route(path, console, methods=["GET"], response_class=HTMLResponse, include_in_schema=False,
                      name="strands_agui_console")
    app.add_api_route(ASSET_PREFIX + "{name:path}", asset, methods=["GET"], include_in_schema=False,
                      name="strands_agui_console_asset")


__all__ = ["ASSETS", "CONTENT_SECURITY_POLICY", "console_html", "mount_console", "static_text"]
