"""The console's files: served from an allow-list with a same-origin Content-Security-Policy, no resource from
another origin, vendored libraries with their licences, the machine diagram drawn from the table (fails on
drift), and the raw test routes' AG-UI streams accepted by both oracles."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from strands_agui.core.machine import STATES, TRANSITIONS
from strands_agui.server.console.page import ASSETS, CONTENT_SECURITY_POLICY, console_html, mount_console, static_text
from strands_agui.server.console.page import STATIC as CONSOLE_STATIC
from strands_agui.tooling import diagrams
from tests.console.app import interrupting, subagents
from tests.oracles import assert_valid_stream
from tests.support.live import LiveServer

STATIC = Path(str(CONSOLE_STATIC))
REGENERATE = ("regenerate it: strands-agui diagram --out diagrams --readme docs/run-machine.md "
              "--console src/strands_agui/server/console/static/run_machine.svg  (or `make diagrams`)")


@pytest.fixture(scope="module")
def served() -> Iterator[LiveServer]:
    app = FastAPI()
    mount_console(app)
    with LiveServer(app) as server:
        yield server


def test_page_and_assets_are_served_with_their_types_and_policy(served: LiveServer) -> None:
    page = httpx.get(served.url + "/")
    assert page.status_code == 200 and page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe-inline" not in CONTENT_SECURITY_POLICY
    for name, media_type in ASSETS.items():
        response = httpx.get(f"{served.url}/console/{name}")
        assert response.status_code == 200, name
        assert response.headers["content-type"] == media_type
        assert response.headers["x-content-type-options"] == "nosniff"
    for page_ref in re.findall(r'(?:src|href)="(/console/[^"]+)"', console_html()):
        assert page_ref.removeprefix("/console/") in ASSETS


@pytest.mark.parametrize("path", ["console.py", "../console.py", "%2e%2e/console.py", "..%2Fendpoint.py",
                                  "static/console.css", "vendor/", "/etc/passwd", "console.css/"])
def test_only_listed_files_are_served(served: LiveServer, path: str) -> None:
    assert httpx.get(f"{served.url}/console/{path}").status_code == 404


def test_no_resource_from_another_origin() -> None:
    """No script, style, font or request leaves the page's origin (the machine, and CI, have no internet)."""
    for name in ("console.html", *ASSETS):
        if name.startswith("vendor/") or name.endswith(".svg"):
            continue
        text = static_text(name).replace('"http://www.w3.org/2000/svg"', "")  # a namespace name, never fetched
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), name
        assert "@import" not in text and "http://" not in text and "https://" not in text, name
    assert not re.search(r"<script>(?!</script>)", console_html()), "no inline script (the policy forbids it)"
    assert " style=" not in console_html()


def test_the_page_s_modules_import_no_cycle_and_only_served_files() -> None:
    """The ES modules' imports form no cycle (``a2ui.js`` and ``views.js`` imported each other for ``el``: now
    both take it from ``dom.js``), and each module imported is one the console serves."""
    graph = {name: set(re.findall(r'^import[^;]*?from "\./([\w./-]+)";', static_text(name), re.M))
             for name in ASSETS if name.endswith(".js") and not name.startswith("vendor/")}
    assert all(imported <= set(ASSETS) for imported in graph.values()), graph

    def reaches(start: str, seen: tuple[str, ...]) -> None:
        for name in graph.get(start, ()):
            assert name not in seen, f"import cycle: {' -> '.join((*seen, name))}"
            reaches(name, (*seen, name))

    for module in graph:
        reaches(module, (module,))


def test_vendored_libraries_carry_their_licences() -> None:
    for library in ("markdown-it", "fast-json-patch"):
        assert (STATIC / "vendor" / f"{library}.min.js").is_file()
        assert "MIT" in (STATIC / "vendor" / f"{library}.LICENSE.txt").read_text() or \
               "Permission is hereby granted" in (STATIC / "vendor" / f"{library}.LICENSE.txt").read_text()


def test_console_diagram_has_every_state_and_move_of_the_table() -> None:
    source = diagrams.console_dot()
    for state in STATES:
        assert f"id=\"state-{state}\"" in source or f"id=state-{state}" in source, state
    for row in TRANSITIONS:
        assert f"move-{row['trigger']}-" in source, row


def test_committed_console_diagram_matches_a_fresh_render() -> None:
    committed = (STATIC / diagrams.CONSOLE_SVG).read_text()
    if shutil.which("dot") is None:
        pytest.fail("Graphviz `dot` is missing: `make test` installs it (apt-get install graphviz)")
    installed = subprocess.run(["dot", "-V"], capture_output=True, text=True).stderr
    if diagrams.graphviz_version(committed) not in installed:
        pytest.skip(f"committed SVG was drawn by another Graphviz ({installed.strip()})")
    assert committed == diagrams.console_svg(), f"the console's run_machine.svg is stale; {REGENERATE}"


def with_ids(events: list[dict[str, Any]], body: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"threadId": body["threadId"], "runId": body["runId"], **e} if e["type"] in {"RUN_STARTED", "RUN_FINISHED"}
            else e for e in events]


@pytest.mark.slow
def test_raw_test_streams_are_valid_ag_ui() -> None:
    """The browser tests' hand-written AG-UI streams (interrupt, resume, subagents) pass both oracles."""
    body: dict[str, Any] = {"threadId": "t", "runId": "r1", "messages": []}
    assert_valid_stream(with_ids(subagents(body), body))
    paused = assert_valid_stream(with_ids(interrupting(body), body))
    resumed = {**body, "runId": "r2", "messages": paused["messages"],
               "resume": [{"interruptId": "int-1", "status": "resolved", "payload": {"approved": True}}]}
    report = assert_valid_stream(with_ids(interrupting(resumed), resumed), input=resumed)
    assert [m["role"] for m in report["messages"]] == ["assistant", "tool", "assistant"]
