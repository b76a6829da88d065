"""CopilotKit 1.74 in front of ``strands-agui serve``, driven in Debian's Chromium.

* ``served``: ``strands-agui serve`` (the example routes, scripted model) in a subprocess on a free loopback port;
* ``bundle``: the page (``src/``) built by ``build.mjs`` with esbuild into ``dist/``;
* ``runtime``: ``runtime.mjs``, the CopilotKit runtime (one ``HttpAgent`` per route) serving ``/api/copilotkit``
  (v1), ``/api/v2`` (v2) and the page, on a free loopback port;
* ``browser``: the console tests' Chromium (``tests.console.conftest``).

The npm packages come from ``npm ci`` here (``make deps``); without them the tests skip locally and fail under
``CI``. Nothing leaves loopback: telemetry is off in the runtime, and the page's off-loopback requests are refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.console.conftest import TIMEOUT_MS, browser, unavailable  # noqa: F401 - browser is a fixture
from tests.support import processes

HERE = Path(__file__).parent
LOAD_TIMEOUT_MS = 90_000  # the first load parses the ~17 MB bundle on a shared machine
START_TIMEOUT = 120  # seconds: a cold runtime start loads ~800 MB of node_modules on a busy machine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def node() -> str:
    found = shutil.which("node")
    if found is None:
        unavailable("node is missing (make tools)")
    if not (HERE / "node_modules" / ".package-lock.json").exists():
        unavailable(f"{HERE}/node_modules is missing (make deps runs npm ci there)")
    return str(found)


def stop(process: subprocess.Popen[str]) -> None:
    processes.stop(process, grace=15)


def wait_ping(process: subprocess.Popen[str], base: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        assert process.poll() is None, f"strands-agui serve exited with {process.returncode}"
        try:
            httpx.get(f"{base}/ping", timeout=2)
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, "strands-agui serve did not start"
            time.sleep(0.2)


@contextlib.contextmanager
def serve_cli(sessions: Path, *flags: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """``strands-agui serve`` (the scripted model, no key; no ``STRANDS_AGUI_*`` of this process but ``env``)
    on a free port with ``--sessions sessions`` and ``flags``; yields its base URL, stops it after."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("STRANDS_AGUI_")}
    environment.update(env or {})
    command = [sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--port", str(port), "--sessions",
               str(sessions), *flags, "--log-level", "warning"]
    process = processes.start(command, env=environment, text=True)
    try:
        wait_ping(process, f"http://127.0.0.1:{port}")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``strands-agui serve`` with the scripted model (no key); paused runs wait in a temporary directory."""
    with serve_cli(tmp_path_factory.mktemp("sessions")) as url:
        yield url


def _sources_digest() -> str:
    """What the bundle is built from: the page's sources, the build script and the npm lock."""
    digest = hashlib.sha256()
    for path in sorted([*(HERE / "src").rglob("*"), HERE / "build.mjs", HERE / "package-lock.json"]):
        if path.is_file():
            digest.update(str(path.relative_to(HERE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The page, built from ``src/`` by esbuild (from npm) into ``dist/``: once for its sources, under a lock, so
    test processes running side by side (``pytest -n``) neither rebuild it under each other's runtime nor twice."""
    dist = HERE / "dist"
    stamp = dist / ".sources"
    with (HERE / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        digest = _sources_digest()
        if not stamp.is_file() or stamp.read_text() != digest:
            subprocess.run([node(), "build.mjs"], cwd=HERE, check=True, timeout=300)
            stamp.write_text(digest)
    return dist


def listening_port(process: subprocess.Popen[str], out: IO[str]) -> int:
    """The port ``runtime.mjs`` prints once it listens (``listening <port>``)."""
    line = out.readline()
    assert line.startswith("listening "), f"the runtime did not start (exit {process.poll()}): {line!r}"
    return int(line.split()[1])


@pytest.fixture(scope="module")
def runtime(served: str, bundle: Path) -> Iterator[str]:
    """The CopilotKit runtime + the page, on loopback; its own output goes to the test's log."""
    from strands_agui.examples.demo import EXAMPLES

    routes = ",".join(module.agent.name for module in EXAMPLES)
    env = {**os.environ, "COPILOTKIT_TELEMETRY_DISABLED": "true", "DO_NOT_TRACK": "1", "NODE_ENV": "production"}
    process = processes.start([node(), "runtime.mjs", served, routes], cwd=HERE, env=env, text=True,
                              stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        yield f"http://127.0.0.1:{listening_port(process, process.stdout)}"
    finally:
        stop(process)


READY_TO_SEND = """() => {
    const button = document.querySelector('[data-testid="copilot-send-button"]');
    return button && !button.disabled && !/stop/i.test(button.getAttribute('aria-label') || button.textContent);
}"""


def connected(api: str) -> Any:
    """The response after which the chat talks to the agent: v2's ``GET /info``; v1's ``agent/connect`` (its
    single-route runtime is asked for the info first). A message sent earlier can be lost."""
    def done(response: Any) -> bool:
        request = response.request
        if api == "v2":
            return bool(request.url.endswith("/api/v2/info"))
        return request.url.endswith("/api/copilotkit") and '"agent/connect"' in (request.post_data or "")
    return done


@contextlib.contextmanager
def on(api: str) -> Iterator[None]:
    """What fails names the client generation it failed on (a test checks v2 and v1 around one runtime restart)."""
    try:
        yield
    except AssertionError as failed:
        raise AssertionError(f"{api}: {failed}") from failed


class Page:
    """One CopilotKit page load, with what it did on the network and in its console."""

    def __init__(self, page: Any, base: str) -> None:
        self.page, self.base = page, base
        self.failed: list[str] = []  # responses >= 400
        self.errors: list[str] = []  # page errors and console errors (failed loads are in `failed`)
        self.off_loopback: list[str] = []  # requests for anything not on 127.0.0.1 (refused)
        page.on("response", lambda r: self.failed.append(f"{r.status} {r.request.method} {r.url}")
                if r.status >= 400 else None)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", lambda m: self.errors.append(m.text)
                if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
        page.route("**/*", self._loopback_only)

    def _loopback_only(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(("http://127.0.0.1:", "data:", "blob:")):
            route.continue_()
        else:
            self.off_loopback.append(url)
            route.abort()

    def open(self, api: str, agent: str) -> Any:
        """Load the page for ``agent`` with the ``api`` ("v1" or "v2") hooks, once the runtime is known."""
        with self.page.expect_response(connected(api), timeout=LOAD_TIMEOUT_MS):
            self.page.goto(f"{self.base}/?api={api}&agent={agent}")
        self.page.wait_for_selector("textarea")
        return self.page

    def send(self, text: str) -> None:
        """Type ``text`` in the chat and press Enter once the chat takes it (not while it connects or runs)."""
        box = self.page.locator("textarea")
        box.fill(text)
        self.page.wait_for_function(READY_TO_SEND)
        box.press("Enter")
        expect(box).to_have_value("")


@pytest.fixture(scope="module")
def context(browser: Any) -> Iterator[Any]:  # noqa: F811 - browser is the imported fixture
    """One browser context for the module: its HTTP cache keeps the ~17 MB bundle between page loads."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


@pytest.fixture
def copilotkit(context: Any, runtime: str) -> Iterator[Page]:
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watched = Page(page, runtime)
    yield watched
    page.close()
    assert not watched.errors, f"errors in the page: {watched.errors}"
    assert not watched.off_loopback, f"the page asked for more than loopback: {watched.off_loopback}"
    # `<CopilotKit runtimeUrl>` (v1) first probes the REST transport: GET .../info is 405 on the single route
    assert [f for f in watched.failed if not f.startswith("405 GET ") or not f.endswith("/api/copilotkit/info")] == []


class RestartableRuntime:
    """``runtime.mjs --restore`` (``strands-runner.mjs``'s runner) in front of a served app, for ``routes`` (its
    agents' names, comma-separated); ``stop`` then ``start`` is a runtime restart (a fresh process, its memory
    empty). The restore tests' runtime (``test_restore.py``, ``test_restore_live.py``)."""

    def __init__(self, served: str, routes: str) -> None:
        self.served, self.routes = served, routes
        self.process: subprocess.Popen[str] | None = None
        self.base = ""

    def start(self) -> str:
        env = {**os.environ, "COPILOTKIT_TELEMETRY_DISABLED": "true", "DO_NOT_TRACK": "1", "NODE_ENV": "production"}
        self.process = processes.start([node(), "runtime.mjs", self.served, self.routes, "--restore"], cwd=HERE,
                                       env=env, text=True, stdout=subprocess.PIPE)
        assert self.process.stdout is not None
        try:
            self.base = f"http://127.0.0.1:{listening_port(self.process, self.process.stdout)}"
        except BaseException:
            self.stop()
            raise
        return self.base

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@pytest.fixture
def pages(context: Any, browser: Any) -> Iterator[Any]:  # noqa: F811 - browser is the imported fixture
    """Opens watched pages on a thread (in ``context``, or another one); each ends with no page errors and
    nothing but loopback asked for."""
    opened: list[Page] = []
    contexts: list[Any] = []

    def open_page(base: str, api: str, agent: str, thread: str, other_context: bool = False) -> Page:
        owner = context
        if other_context:
            owner = browser.new_context(viewport={"width": 1280, "height": 900})
            contexts.append(owner)
        page = owner.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        watched = Page(page, base)
        with page.expect_response(connected(api), timeout=LOAD_TIMEOUT_MS):
            page.goto(f"{base}/?api={api}&agent={agent}&thread={thread}")
        page.wait_for_selector("textarea")
        opened.append(watched)
        return watched

    def close_all() -> None:
        """Close every page opened so far (before a runtime restart: a page left open on a stopped runtime logs
        the fetches that fail while it is down, which the end of the test would count as the page's errors)."""
        for watched in opened:
            watched.page.close()

    open_page.close_all = close_all  # type: ignore[attr-defined]
    yield open_page
    close_all()
    for owner in contexts:
        owner.close()
    for watched in opened:
        assert not watched.errors, f"errors in the page: {watched.errors}"
        assert not watched.off_loopback, f"the page asked for more than loopback: {watched.off_loopback}"
        # `<CopilotKit runtimeUrl>` (v1) first probes the REST transport: GET .../info is 405 on the single route
        probe = ("405 GET ", "/api/copilotkit/info")
        assert [f for f in watched.failed if not f.startswith(probe[0]) or not f.endswith(probe[1])] == []
