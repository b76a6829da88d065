"""`strands-agui diagram` after a plain ``pip install strands-agui`` (no extras, so no graphviz package): it writes
the Mermaid diagram, says in one line how to get the DOT and SVG files, and exits 0. The project is installed
with pip into a fresh ``python -m venv`` (pip's cache supplies the dependencies)."""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import pytest

from strands_agui.tooling import diagrams
from strands_agui.tooling.cli import main
from tests.support.paths import REPO

ROOT = REPO


def _plain_install(tmp: Path) -> Path:
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    source = tmp / "source"  # a copy: building in the clone would leave build/ and egg-info behind
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        (source / name).write_bytes((ROOT / name).read_bytes())
    subprocess.run(["cp", "-r", str(ROOT / "src"), str(source / "src")], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(source)], check=True, capture_output=True,
                   text=True, timeout=900)
    return env_dir


@pytest.mark.slow
def test_diagram_on_a_plain_install_writes_mermaid_and_says_how_to_get_svg(tmp_path: Path) -> None:
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
    assert "`dot` is not on PATH" in err and "apt-get install graphviz" in err
    assert main(["diagram", "--out", str(tmp_path / "e"), "--console", str(tmp_path / "c.svg")]) == 2
    assert "--console draws the console's SVG" in capsys.readouterr().err


