"""Shared pytest setup. The AG-UI conformance oracles live in tests/oracles (import them from there), the helpers
several test files use in tests/support; the fixtures among them are registered here (none is autouse)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.oracles import CLIENT_DIR
from tests.support.hitl import clear_executions  # noqa: F401 - a fixture
from tests.support.schedule import longest_first
from tests.support.servers import echo_server, no_server_errors  # noqa: F401 - fixtures


def pytest_report_header(config) -> list[str]:
    node = shutil.which("node")
    version = "missing"
    if node:
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    installed = (CLIENT_DIR / "node_modules" / "@ag-ui" / "client").is_dir()
    return [
        f"AG-UI oracles: node {version}, @ag-ui/client "
        f"{'installed' if installed else 'NOT installed (run `make deps`)'}, ag-ui-validate (PyPI)"
    ]


def pytest_configure(config) -> None:
    """Paused runs of the examples (human_in_the_loop) park in a temporary directory, never in ~/.strands."""
    import os
    import tempfile

    from strands_agui.environment import SESSIONS_ENV

    config.strands_agui_sessions = tempfile.mkdtemp(prefix="strands-agui-sessions-")
    os.environ[SESSIONS_ENV] = config.strands_agui_sessions


def pytest_unconfigure(config) -> None:
    """The session's temporary pause directory goes with it."""
    import shutil

    path = getattr(config, "strands_agui_sessions", None)
    if path:
        shutil.rmtree(path, ignore_errors=True)


def pytest_collection_modifyitems(config, items) -> None:
    """Every test has its own node id: pytest-xdist schedules by node id, so tests sharing one run once between
    them under ``-n`` (schemathesis' one-function parametrization gave six operations one id). The files come
    longest first (``tests/support/schedule.py``), the order ``make test``'s workers take them in."""
    from collections import Counter

    shared = [nodeid for nodeid, count in Counter(item.nodeid for item in items).items() if count > 1]
    if shared:
        raise pytest.UsageError(f"tests share a node id, so pytest -n would run one of each: {shared[:5]}")
    longest_first(items, lambda item: item.nodeid.split("::")[0])  # tests/support/schedule.py
