"""Every route the console lists, mid-run and after Stop, at the three designed widths: what the gallery's
screenshots (``python -m tests.console.screenshots``) and its layout test (``test_gallery_layout.py``) share.

A run is held mid-way on the server: :class:`Hold` wraps the examples app (ASGI) and stops passing a run's
stream on once the events a whole run of the same prompt had sent halfway through its time have gone out,
until released. The page
is then mid-run for as long as we look (the run itself waits on the socket), and Stop ends it as a person's
would.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from tests.console.app import build_examples_app
from tests.console.browser import open_example, send, wait_idle
from tests.support.live import LiveServer

WIDTHS = ((390, 844), (1024, 768), (1440, 900))
PHASES = ("running", "stopped")
PANES = ("#chat", "#state-panel", "#machine-panel", "#inspector-panel")
INSPECT = {"strandsAgui": {"inspect": True}}
HOLD_SECONDS = 60  # a held run is released after this even when nobody does


class Hold:
    """ASGI middleware: the POST to ``path`` (one run) is held once ``at`` SSE events went out (``reached``),
    until ``release`` is set; every other request, and every run once released, passes untouched."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.path: str | None = None
        self.at = 0
        self.reached = threading.Event()
        self.release = threading.Event()

    def arm(self, path: str, at: int) -> None:
        self.path, self.at = path, at
        self.reached.clear()
        self.release.clear()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        self.path = None  # one run per arming: a follow-up run passes
        sent = 0

        async def held(message: dict[str, Any]) -> None:
            nonlocal sent
            if message["type"] == "http.response.body" and sent >= self.at and not self.release.is_set():
                self.reached.set()
                for _ in range(HOLD_SECONDS * 50):
                    if self.release.is_set():
                        break
                    await asyncio.sleep(0.02)
            if message["type"] == "http.response.body":
                sent += message.get("body", b"").count(b"\n\n")
            await send(message)

        await self.app(scope, receive, held)


@dataclass(frozen=True)
class Route:
    path: str
    name: str
    prompt: str
    body: dict[str, Any]  # what the page sends for the prompt (a fresh thread)


@contextmanager
def held_examples() -> Iterator[tuple[LiveServer, Hold]]:
    """The examples app (``examples/demo.py`` with the console) behind a :class:`Hold`, on loopback."""
    app: FastAPI = build_examples_app()
    hold = Hold(app)
    with LiveServer(hold) as served:  # type: ignore[arg-type]
        try:
            yield served, hold
        finally:
            hold.release.set()


def routes(served: LiveServer) -> list[Route]:
    """Every route ``GET /examples`` lists, with its first suggested prompt."""
    listed = httpx.get(served.url + "/examples", timeout=10).json()
    out = []
    for entry in listed:
        prompt = (entry.get("prompts") or ["Hello"])[0]
        body = {"threadId": f"gallery-{entry['path'].strip('/')}", "runId": "gallery-count",
                "messages": [{"id": "u1", "role": "user", "content": prompt}],
                "state": entry.get("initialState") or {}, "tools": entry.get("frontendTools") or [],
                "context": [], "forwardedProps": INSPECT, "protocolVersion": "1.0"}
        out.append(Route(entry["path"], entry.get("name") or entry["path"], prompt, body))
    return out


def midpoint(served: LiveServer, route: Route) -> int:
    """The events a whole run of the route's prompt has sent halfway through its time (a run visibly under way:
    a scripted model's pauses are where the time goes, not its events)."""
    arrivals: list[tuple[float, int]] = []
    start, count = time.monotonic(), 0
    with httpx.stream("POST", served.url + route.path, json=route.body, timeout=120,
                      headers={"Accept": "text/event-stream"}) as response:
        assert response.status_code == 200, response.read()
        for chunk in response.iter_bytes():
            count += chunk.count(b"\n\n")
            arrivals.append((time.monotonic() - start, count))
    half = arrivals[-1][0] / 2 if arrivals else 0
    return max(2, next((n for t, n in arrivals if t >= half), count // 2))


@contextmanager
def midpoints_ahead(served: LiveServer, listed: list[Route]) -> Iterator[dict[str, Future[int]]]:
    """:func:`midpoint` of each route in ``listed``, in that order, one after another in a background thread: the
    layout test looks at one route in the browser while the next one's whole run is timed (before each route in
    turn, they took ~18 s of its ~70 s). One run at a time, beside the browser's held one: all at once, 15 runs
    side by side, the short runs' midpoints fell to their first 2 or 3 events."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        futures = {route.path: pool.submit(midpoint, served, route) for route in listed}
        try:
            yield futures
        finally:
            for future in futures.values():
                future.cancel()


def run_to_the_middle(page: Any, served: LiveServer, hold: Hold, route: Route, at: int | None = None) -> None:
    """Open the route in ``page``, send its prompt and wait until the server holds the run mid-way (``at`` events
    out, its :func:`midpoint` when not given)."""
    hold.arm(route.path, midpoint(served, route) if at is None else at)
    open_example(page, served, route.path)
    send(page, route.prompt)
    assert hold.reached.wait(60), f"{route.path}: the run never reached its middle"
    page.wait_for_function("document.body.dataset.running === 'true'")
    page.wait_for_timeout(400)  # what arrived is painted


def stop(page: Any, hold: Hold) -> None:
    """Press Stop (the page aborts the request), then let the server's side of the run go."""
    page.click("#stop")
    wait_idle(page)
    hold.release.set()
    page.wait_for_timeout(300)


def at_width(page: Any, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_timeout(150)


LAYOUT = """(selectors) => {
    const doc = document.documentElement;
    const clipped = (n) => {  // content cut sideways (hidden overflow), form fields aside
        if (['INPUT', 'TEXTAREA', 'SELECT', 'OPTION'].includes(n.tagName)) return false;
        const s = getComputedStyle(n);
        return /(hidden|clip)/.test(s.overflowX) && n.scrollWidth > n.clientWidth + 2 && n.clientWidth > 2;
    };
    const top = document.querySelector('.topbar'), box = top.getBoundingClientRect();
    const inTop = [top, ...top.querySelectorAll('*')].filter((n) => n.getClientRects().length);
    return {pageWidth: doc.scrollWidth, viewport: doc.clientWidth, header: box.width, headerRight: box.right,
            headerClipped: inTop.filter(clipped).map((n) => n.id || n.className),
            headerOutside: inTop.filter((n) => {
                const r = n.getBoundingClientRect();
                return r.width > 0 && (r.left < -0.5 || r.right > doc.clientWidth + 0.5);
            }).map((n) => n.id || n.className),
            panes: selectors.map((sel) => { const r = document.querySelector(sel).getBoundingClientRect();
                return {sel, x: r.x, right: r.right}; })};
}"""


def layout_problems(page: Any, width: int) -> list[str]:
    """What is wrong with the page's layout at ``width``: a horizontal page scroll, a header narrower than the
    page or with something cut or outside it, a pane outside the page (``test_design.py``'s assertions)."""
    layout = page.evaluate(LAYOUT, list(PANES))
    problems = []
    if not layout["pageWidth"] <= layout["viewport"] == width:
        problems.append(f"the page scrolls sideways: {layout['pageWidth']} px wide in {layout['viewport']}")
    if layout["header"] < width - 1:
        problems.append(f"the header is {layout['header']} px wide")
    if layout["headerClipped"] or layout["headerOutside"]:
        problems.append(f"the header is clipped: {layout['headerClipped']} {layout['headerOutside']}")
    problems += [f"{p['sel']} is outside the page: {p}" for p in layout["panes"]
                 if not (0 <= p["x"] and p["right"] <= width + 0.5)]
    return problems
