"""A wheel built from this tree installed into a fresh virtual environment (``tests/e2e/test_install.py``,
``tests/e2e/test_agentcore_container.py``).

The fresh environment sees the test environment's site-packages through a ``.pth`` line (what
``--system-site-packages`` does for a system interpreter), so the dependencies are not downloaded again; only
strands-agui itself comes from the wheel, and the clone's ``src`` is on no path. The wheel is built with the
``dev`` extra's setuptools when it is there, else with pip's build isolation (the package index or pip's cache)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import venv
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from tests.support.paths import REPO

ROOT = REPO


def copy_source(tmp: Path) -> Path:
    """The package's source under ``tmp/source``: a copy, so a build leaves no build/ or egg-info in the clone."""
    source = tmp / "source"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return source


def build_wheel(tmp: Path) -> Path:
    source = copy_source(tmp)
    no_isolation = ["--no-build-isolation"] if has_modern_setuptools() else []
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *no_isolation,
                    "-w", str(tmp / "dist"), str(source)], check=True, capture_output=True, text=True, timeout=600)
    (wheel,) = (tmp / "dist").glob("strands_agui-*.whl")
    return wheel


def has_modern_setuptools() -> bool:
    """The setuptools the ``dev`` extra installs (PEP 639 license strings), so the build needs no download."""
    try:
        return int(version("setuptools").split(".")[0]) >= 77
    except PackageNotFoundError:
        return False


def fresh_venv(tmp: Path, wheel: Path) -> Path:
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True, text=True, timeout=300)
    return env_dir


def clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STRANDS_AGUI_MODEL", "VIRTUAL_ENV")}
    env.update(STRANDS_AGUI_SCRIPTED_DELAY="0", STRANDS_AGUI_SESSIONS=str(tmp / "sessions"))
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def installed_venv(tmp: Path) -> Path:
    """A fresh virtual environment in ``tmp`` with the wheel of this tree installed."""
    return fresh_venv(tmp, build_wheel(tmp))
