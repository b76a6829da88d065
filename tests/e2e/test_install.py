"""The installed product: a wheel built from this tree, installed into a fresh virtual environment, serves the
bundled examples and the console page with ``strands-agui serve`` run from a directory outside the clone.

How the wheel and the environment are made: ``tests/support/install.py``."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.install import clean_env, free_port, installed_venv
from tests.support.processes import running
from tests.support.wire import SSE_HEADERS, parse_sse, run_input


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("install")
    return installed_venv(tmp)


@pytest.fixture
def served(installed: Path, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running([str(installed / "bin" / "strands-agui"), "serve", "--port", str(port)], cwd=tmp_path,
                 env=clean_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as server:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.communicate()[0]
            try:
                httpx.get(f"{base}/ping", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "strands-agui serve did not start"
                time.sleep(0.2)
        yield base


@pytest.mark.slow
def test_the_package_comes_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    code = "import strands_agui; print(strands_agui.__file__)"
    where = subprocess.run([str(installed / "bin" / "python"), "-c", code],
                           cwd=tmp_path, env=clean_env(tmp_path), check=True, capture_output=True, text=True)
    assert Path(where.stdout.strip()).is_relative_to(installed)


@pytest.mark.slow
def test_serve_from_another_directory_serves_the_examples_and_the_page(served: str) -> None:
    page = httpx.get(f"{served}/", timeout=10)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    examples = httpx.get(f"{served}/examples", timeout=10).json()
    assert "agentic_chat" in json.dumps(examples)
    assets = re.findall(r'(?:src|href)="(/console/[^"]+)"', page.text)
    assert "/console/console.js" in assets
    for asset in assets:  # the page's files ship in the wheel too
        assert httpx.get(f"{served}{asset}", timeout=10).status_code == 200, asset
    response = httpx.post(f"{served}/agentic_chat", content=json.dumps(run_input("Hello")), headers=SSE_HEADERS,
                          timeout=60)
    events, _ = parse_sse(response.content)
    assert response.status_code == 200 and events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    assert any(e["type"] == "TEXT_MESSAGE_CONTENT" for e in events)
