"""`strands-agui diagram` after a plain ``pip install strands-agui`` (no extras, so no graphviz package): it writes
the Mermaid diagram, says in one line how to get the DOT and SVG files, and exits 0.

What a plain install brings is the closure of the project's dependencies (``[project] dependencies`` of this tree,
then each one's own ``Requires-Dist`` without extras, as installed here): no graphviz in it. The project is installed
with pip (``--no-deps``) into a fresh ``python -m venv`` that sees the test environment's packages but graphviz
through a ``.pth`` line (as ``tests/e2e/test_install.py`` does), so nothing is downloaded or unpacked again."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from strands_agui.tooling import diagrams
from strands_agui.tooling.cli import main
from tests.support.install import copy_source, has_modern_setuptools
from tests.support.paths import REPO

ROOT = REPO


def _plain_closure() -> set[str]:
    """The distributions ``pip install strands-agui`` brings (normalised names): the project's dependencies and
    theirs, markers evaluated without extras, each as installed in this environment."""
    import tomllib
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    todo = [Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    seen: set[str] = set()
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen or (requirement.marker is not None and not requirement.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        try:
            todo += [Requirement(r) for r in distribution(name).requires or ()]
        except PackageNotFoundError:
            pass  # not installed here, so not graphviz's way in either (graphviz is installed: the dev extra)
    return seen


def _without_graphviz(tmp: Path) -> Path:
    """This environment's packages but graphviz (and the clone's own strands_agui), as symlinks in one directory."""
    from importlib.metadata import distribution

    purelib = Path(sysconfig.get_paths()["purelib"])
    graphviz = {Path(str(f)).parts[0] for f in distribution("graphviz").files or ()}
    assert graphviz, "the dev extra's graphviz package is installed here"
    deps = tmp / "deps"
    deps.mkdir()
    for entry in purelib.iterdir():
        if entry.name in graphviz or "strands_agui" in entry.name or entry.suffix == ".pth":
            continue
        (deps / entry.name).symlink_to(entry)
    return deps


def _plain_install(tmp: Path) -> Path:
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "test-dependencies.pth").write_text(f"{_without_graphviz(tmp)}\n", encoding="utf-8")
    source = copy_source(tmp)
    no_isolation = ["--no-build-isolation"] if has_modern_setuptools() else []
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", *no_isolation,
                    str(source)], check=True, capture_output=True, text=True, timeout=900)
    return env_dir


@pytest.mark.slow
def test_diagram_on_a_plain_install_writes_mermaid_and_says_how_to_get_svg(tmp_path: Path) -> None:
    assert "graphviz" not in _plain_closure(), "the plain install must not bring the graphviz package"
    assert {"strands-agents", "fastapi", "uvicorn"} <= _plain_closure()  # the closure is the real one
    env_dir = _plain_install(tmp_path)
    probe = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import graphviz"], capture_output=True)
    assert probe.returncode != 0, "the plain install must not bring the graphviz package"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = tmp_path / "out"
    done = subprocess.run([str(env_dir / "bin" / "strands-agui"), "diagram", "--out", str(out)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["run_machine.mmd", "served_run.mmd"]
    assert (out / "run_machine.mmd").read_text() == diagrams.mermaid()
    assert done.stdout.split() == [str(out / "run_machine.mmd"), str(out / "served_run.mmd")]
    (line,) = done.stderr.strip().splitlines()
    assert "graphviz Python package is not installed" in line and "pip install 'strands-agui[diagrams]'" in line
    help_text = subprocess.run([str(env_dir / "bin" / "strands-agui"), "diagram", "--help"], env=env,
                               capture_output=True, text=True, timeout=60).stdout
    for option in ("--out", "--no-svg", "--readme", "--console", "--debug"):
        assert option in help_text


def test_diagram_help_documents_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["diagram", "--help"])
    text = capsys.readouterr().out
    for option, words in {"--out": "directory", "--no-svg": "skip the SVG", "--readme": "Mermaid block",
                          "--console": "console's SVG", "--debug": "traceback"}.items():
        assert option in text and words in " ".join(text.split()), option


def test_without_dot_the_diagram_is_mermaid_and_dot_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # the graphviz package is there, `dot` is not
    assert main(["diagram", "--out", str(tmp_path / "d")]) == 0
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["run_machine.dot", "run_machine.mmd",
                                                                   "served_run.dot", "served_run.mmd"]
    err = capsys.readouterr().err
    assert "`dot` is not on PATH" in err and "apt-get install graphviz" in err and "pip install" not in err
    assert main(["diagram", "--out", str(tmp_path / "e"), "--console", str(tmp_path / "c.svg")]) == 2
    assert "--console draws the console's SVG" in capsys.readouterr().err




def test_with_dot_on_path_the_advice_is_only_the_python_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dot").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (bin_dir / "dot").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))  # Graphviz's `dot` is there, the graphviz package is not
    monkeypatch.setitem(sys.modules, "graphviz", None)
    assert main(["diagram", "--out", str(tmp_path / "d")]) == 0
    (line,) = capsys.readouterr().err.splitlines()
    assert line == ("strands-agui: wrote the Mermaid diagrams only (the graphviz Python package is not installed); "
                    "for the DOT and SVG files too: pip install 'strands-agui[diagrams]'"), line
