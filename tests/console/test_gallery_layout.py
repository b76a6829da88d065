"""Every route the console lists (``GET /examples`` of ``examples/demo.py``'s app), mid-run (held half-way on the
server, ``gallery.py``) and after Stop, at 390, 1024 and 1440 px: no horizontal page scroll, the header whole and
nothing in it cut, every pane inside the page; after Stop no tool card or subagent block still says running.
What ``python -m tests.console.screenshots`` photographs for ``docs/console/``; this test writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from strands_agui.examples.demo import EXAMPLES
from tests.console.conftest import TIMEOUT_MS, page_error
from tests.console.gallery import (
    PHASES,
    WIDTHS,
    Hold,
    at_width,
    held_examples,
    layout_problems,
    midpoints_ahead,
    routes,
    run_to_the_middle,
    stop,
)
from tests.support.live import LiveServer

pytestmark = pytest.mark.slow  # a browser, and a run per route

ROUTES = [f"/{module.agent.name}" for module in EXAMPLES]


@pytest.fixture(scope="module")
def held() -> Iterator[tuple[LiveServer, Hold]]:
    with held_examples() as served:
        yield served


@pytest.fixture(scope="module")
def middle(held: tuple[LiveServer, Hold]) -> Iterator[dict[str, Future[int]]]:
    """Each route's :func:`~tests.console.gallery.midpoint`, timed in the background ahead of its test."""
    listed = sorted(routes(held[0]), key=lambda route: ROUTES.index(route.path) if route.path in ROUTES else 0)
    with midpoints_ahead(held[0], listed) as futures:
        yield futures


def test_the_gallery_covers_every_route_the_console_lists(held: tuple[LiveServer, Hold]) -> None:
    assert sorted(route.path for route in routes(held[0])) == sorted(ROUTES)


@pytest.mark.parametrize("path", ROUTES)
def test_each_route_is_laid_out_at_every_width_mid_run_and_after_stop(
        browser: Any, held: tuple[LiveServer, Hold], middle: dict[str, Future[int]], path: str) -> None:
    served, hold = held
    [route] = [r for r in routes(served) if r.path == path]
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if page_error(msg) else None)
    problems: dict[str, list[str]] = {}
    try:
        run_to_the_middle(page, served, hold, route, middle[path].result(timeout=120))
        for phase in PHASES:
            if phase == "stopped":
                stop(page, hold)
            for width, height in WIDTHS:
                at_width(page, width, height)
                if found := layout_problems(page, width):
                    problems[f"{phase} at {width} px"] = found
        # no stale state: once stopped, nothing on the page says it is still running
        still = page.locator('[data-testid="subagent-status"], [data-testid="tool-status"]').all_inner_texts()
        if stale := [text for text in still if text.startswith("running")]:
            problems["after Stop"] = [f"still says {text!r}" for text in stale]
    finally:
        hold.release.set()
        context.close()
    assert problems == {}, problems
    assert errors == [], errors
