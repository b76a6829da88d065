"""The browser console for the served examples: a page, its scripts and styles, and the machine's diagram.

Everything is in the package's ``static`` directory (no build step, no network resources):

* ``console.html`` (markup), ``console.css``;
* ES modules, in three kinds:

  - the store, ``store.js``: what the page holds (threads, runs) and the pure functions that change it: the
    AG-UI reducer mirroring ``@ag-ui/client``, the trace and log events, how a run ends, a thread's status;
  - the transport, ``transport.js``: the SSE reader and the page's requests, failures in words a person can
    act on;
  - the views, each drawing with ``dom.js`` (``el``, ``setText``, ``reconcile``; it imports nothing, so no
    view imports another to get them and no two modules import each other): ``views.js`` (messages, tool
    cards, subagents, interrupts, background task cards), ``markdown.js`` (safe markdown), ``chart.js``
    (charts a tool result asks for), ``a2ui.js`` (A2UI surfaces, painted as the render call streams),
    ``state.js`` (state views), ``diagram.js`` (the run machine: a focused view, a scrubber over the recorded
    moves and the whole diagram; its words, as data, in ``machine_view.js``), ``inspector.js`` (the trace),
    ``downloads.js`` (the trace and the log);

  and ``console.js``, the app wiring them (all its state on one object), ``frontend_tools.js`` (the tools the
  page runs: ``change_background``, ...), ``threads.js`` (a reload restores
  the thread through the thread API; regenerate), ``openlog.js`` (Open a log: a ``.jsonl`` run
  log replayed by ``POST /console/replay``, the run machine without a model, shown as a run);
* ``vendor/``: markdown-it and fast-json-patch (MIT, licences beside them);
* ``run_machine.svg``: the run machine drawn from ``core.machine.TRANSITIONS`` (``tooling.diagrams``).

The page lists the agents from ``GET /examples``, keeps one AG-UI thread per agent and POSTs ``RunAgentInput``
to the agent's path. :func:`mount_console` serves that list itself: every endpoint
``add_strands_fastapi_endpoint`` added to the app (before or after), with its name, description, and the
``prompts``, ``frontend_tools`` and ``initial_state`` of its options (an app that defines its own ``GET /examples``
before mounting keeps it). An entry's ``threads`` says whether the server keeps the agent's threads, so the page
asks ``GET {path}/threads/{id}`` only then. Only the files named in :data:`ASSETS` are served (no path is ever
joined from the request), and the page is sent with a Content-Security-Policy that allows scripts, styles,
images and requests from its own origin only: text a model or tool wrote can never run as script or make
the browser fetch another address.
"""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from functools import cache
from importlib.resources import files
from typing import Any

from ag_ui.core import RunAgentInput
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from fastapi.routing import APIRoute

from ...runtime.adapter import REPLAY_INPUT, StrandsAgent
from ...runtime.recordings import LogFormatError, RecordedRun, read_log
from .inspector import inspected_run

STATIC = files(__name__.rpartition(".")[0]) / "static"
"""The console's ``static`` directory, beside this module."""

CONSOLE_PAGE = "console.html"
ASSET_PREFIX = "/console/"
ASSETS: dict[str, str] = {
    "console.css": "text/css; charset=utf-8",
    "store.js": "text/javascript; charset=utf-8",
    "dom.js": "text/javascript; charset=utf-8",
    "transport.js": "text/javascript; charset=utf-8",
    "markdown.js": "text/javascript; charset=utf-8",
    "views.js": "text/javascript; charset=utf-8",
    "chart.js": "text/javascript; charset=utf-8",
    "feedback.js": "text/javascript; charset=utf-8",
    "state.js": "text/javascript; charset=utf-8",
    "diagram.js": "text/javascript; charset=utf-8",
    "machine_view.js": "text/javascript; charset=utf-8",
    "inspector.js": "text/javascript; charset=utf-8",
    "downloads.js": "text/javascript; charset=utf-8",
    "a2ui.js": "text/javascript; charset=utf-8",
    "console.js": "text/javascript; charset=utf-8",
    "frontend_tools.js": "text/javascript; charset=utf-8",
    "openlog.js": "text/javascript; charset=utf-8",
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
    return (STATIC / name).read_text(encoding="utf-8")


def console_html() -> str:
    """The console page."""
    return static_text(CONSOLE_PAGE)


REPLAY_PATH = ASSET_PREFIX + "replay"
MAX_LOG_BYTES = 16_000_000
LISTING_PATH = "/examples"
_LISTED = "strands_agui_console_entries"  # the app.state attribute: what the console lists


def list_in_console(app: FastAPI, entry: dict[str, Any]) -> None:
    """Remember an endpoint's ``GET /examples`` entry (``add_strands_fastapi_endpoint`` makes it from its settings:
    ``endpoint.console_entry``)."""
    state = getattr(app, "state", None)  # an APIRouter has none: nothing to list
    if state is not None:
        setattr(state, _LISTED, [*getattr(state, _LISTED, []), entry])


def console_entries(app: FastAPI) -> list[dict[str, Any]]:
    """The ``GET /examples`` list: one entry per endpoint of the app, in the order they were added."""
    return list(getattr(app.state, _LISTED, []))


def mount_console(app: FastAPI, path: str = "/") -> None:
    """Serve the console page at ``GET path``, its files under ``/console/``, and ``GET /examples``: the app's
    endpoints (:func:`console_entries`), unless the app already has a ``GET /examples`` of its own."""
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
    app.add_api_route(REPLAY_PATH, replay_log, methods=["POST"], include_in_schema=False,
                      name="strands_agui_console_replay")
    if not any(isinstance(route, APIRoute) and route.path == LISTING_PATH and "GET" in (route.methods or ())
               for route in app.router.routes):

        async def listing() -> list[dict[str, Any]]:
            """What the console lists: each endpoint's path, name, description, frontend tools, prompts."""
            return console_entries(app)

        app.add_api_route(LISTING_PATH, listing, methods=["GET"], name="strands_agui_console_listing")


async def replay_log(request: Request) -> StreamingResponse:
    """Open a log: the body (a run log, JSON Lines) replayed through the run machine, no model and no tool run,
    with its trace and log as the inspector's CUSTOM events; SSE, as a run streams to the page. The log's own
    configuration is never imported (the default one replays it). A body that is no log is 422, naming why."""
    from ag_ui.encoder import EventEncoder

    body = bytearray()
    async for chunk in request.stream():  # never more than the limit in memory
        body += chunk
        if len(body) > MAX_LOG_BYTES:
            raise HTTPException(status_code=413, detail=f"the log is over {MAX_LOG_BYTES} bytes")
    log = _read_uploaded(bytes(body))
    input_data = log.input_data or RunAgentInput.model_validate(REPLAY_INPUT)
    encoder = EventEncoder(accept="text/event-stream")
    adapter = StrandsAgent(_no_agent)

    class _Replayed:  # what inspected_run runs: the log, recorded again for the inspector's Log
        def run(self, data: RunAgentInput, *, recorder: Any, on_move: Any, **_: Any) -> Any:
            return adapter.replay(log, input_data=data, on_move=on_move, recorder=recorder)

    async def frames() -> AsyncIterator[str]:
        async for event in inspected_run(_Replayed(), input_data):  # type: ignore[arg-type]
            yield encoder.encode(event)

    return StreamingResponse(frames(), media_type="text/event-stream", headers=_HEADERS)


def _read_uploaded(body: bytes) -> RecordedRun:
    try:
        return read_log(io.StringIO(body.decode("utf-8")), partial=True)
    except UnicodeDecodeError:
        raise HTTPException(status_code=422, detail="the file is not UTF-8 text: open a run log (.jsonl)") from None
    except LogFormatError as exc:
        try:
            trace = json.loads(body)
        except ValueError:
            trace = None
        if isinstance(trace, dict) and "strands_agui_trace" in trace:
            raise HTTPException(status_code=422, detail="this is a trace (the Trace download: the machine's "
                                "moves), not a run log: open the Log (run-<runId>.jsonl)") from exc
        raise HTTPException(status_code=422, detail=f"{exc}: open a run log (.jsonl: the console's Log, "
                            "`strands-agui record -o`, a Recorder's)") from exc


def _no_agent(_: RunAgentInput) -> Any:
    raise RuntimeError("a replay never builds a Strands agent")


__all__ = ["ASSETS", "CONTENT_SECURITY_POLICY", "console_entries", "console_html", "list_in_console", "mount_console",
           "static_text"]
