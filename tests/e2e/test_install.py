"""The installed product: a wheel built from this tree, installed into a fresh virtual environment, serves the
bundled examples and the console page with ``strands-agui serve`` run from a directory outside the clone.

The fresh environment sees the test environment's site-packages through a ``.pth`` line (what
``--system-site-packages`` does for a system interpreter), so the dependencies are not downloaded again; only
strands-agui itself comes from the wheel, and the clone's ``src`` is on no path. The wheel is built with the
``dev`` extra's setuptools when it is there, else with pip's build isolation (the package index or pip's cache)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import venv
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import httpx
import pytest

from tests.support.paths import REPO
from tests.support.processes import running
from tests.support.wire import SSE_HEADERS, parse_sse, run_input

ROOT = REPO


def _build_wheel(tmp: Path) -> Path:
    source = tmp / "source"  # a copy, so the build leaves no build/ or egg-info in the clone
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    no_isolation = ["--no-build-isolation"] if _has_modern_setuptools() else []
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *no_isolation,
                    "-w", str(tmp / "dist"), str(source)], check=True, capture_output=True, text=True, timeout=600)
    (wheel,) = (tmp / "dist").glob("strands_agui-*.whl")
    return wheel


def _has_modern_setuptools() -> bool:
    """The setuptools the ``dev`` extra installs (PEP 639 license strings), so the build needs no download."""
    try:
        return int(version("setuptools").split(".")[0]) >= 77
    except PackageNotFoundError:
        return False


def _fresh_venv(tmp: Path, wheel: Path) -> Path:
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True, text=True, timeout=300)
    return env_dir


def _clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STRANDS_AGUI_MODEL", "VIRTUAL_ENV")}
    env.update(STRANDS_AGUI_SCRIPTED_DELAY="0", STRANDS_AGUI_SESSIONS=str(tmp / "sessions"))
    return env


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("install")
    return _fresh_venv(tmp, _build_wheel(tmp))


@pytest.fixture
def served(installed: Path, tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with running([str(installed / "bin" / "strands-agui"), "serve", "--port", str(port)], cwd=tmp_path,
                 env=_clean_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as server:
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
                           cwd=tmp_path, env=_clean_env(tmp_path), check=True, capture_output=True, text=True)
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
