"""Every Python block of README.md and of docs/*.md runs as written, from the repo root, with no network and no
credentials.

Each block runs in a fresh namespace as ``__main__`` (as ``python block.py`` would), with no model configured
(``STRANDS_AGUI_MODEL`` unset: the scripted stand-in) and no AWS credentials reachable. A block may not leave
files behind in the repository. Only shell blocks (and the generated Mermaid diagram, checked by its own test)
are not run, so a Python block cannot escape by being tagged otherwise: an untagged or unknown block fails."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.markdown import GENERATED, PYTHON, SHELL, Block, blocks, run_python
from tests.support.paths import REPO

ROOT = REPO
README = ROOT / "README.md"
BLOCKS = blocks(README)
DATA = frozenset({"json"})
PAGES = sorted((ROOT / "docs").glob("*.md"))
"""The pages README's details moved to: each runs its Python blocks like README."""
PAGE_BLOCKS = [(page, block) for page in PAGES for block in blocks(page)]
FRONTEND = frozenset({"js", "jsx", "ts", "tsx", "json", "text", "console", "", "nginx", "dockerfile", "yaml", "toml",
                      "ini"})
"""What docs pages may also hold: the browser side (docs/copilotkit.md), output, plain text, configuration files."""


def test_every_block_is_python_shell_or_generated() -> None:
    for block in BLOCKS:
        assert block.language in PYTHON | SHELL | GENERATED | DATA, (
            f"README.md {block.name}: a ```{block.language}``` block; tag Python ```python (it is run), "
            "commands ```bash")
        if block.language in DATA:
            json.loads(block.code)


def test_every_docs_block_is_tagged_for_what_it_is() -> None:
    for page, block in PAGE_BLOCKS:
        assert block.language in PYTHON | SHELL | GENERATED | DATA | FRONTEND, f"{page.name} {block.name}"


def test_the_readme_is_a_quickstart() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300
    for page in ("configuration", "errors", "transport", "human-in-the-loop", "multi-agent", "record-and-replay",
                 "security", "deployment", "benchmarks"):
        assert f"(docs/{page}.md)" in README.read_text(encoding="utf-8"), page


def test_the_two_commands_come_first() -> None:
    first = BLOCKS[0]
    assert first.language in SHELL and first.section == "strands-agui"
    assert [line.split("#")[0].strip() for line in first.code.splitlines()] == ["make run", "make test"]


@pytest.fixture
def user_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A new user's shell: repo root, no model configured, no credentials, sessions kept out of $HOME."""
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    for name in ("STRANDS_AGUI_MODEL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_PROFILE", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "STRANDS_AGUI_UPDATE_GOLDEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("STRANDS_AGUI_SCRIPTED_DELAY", "0")
    monkeypatch.setenv("STRANDS_AGUI_SESSIONS", str(tmp_path / "sessions"))


SKIPPED_DIRS = frozenset({".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache",
                          ".pytest_cache"})


def _tree() -> set[str]:
    found: set[str] = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        found.update(os.path.join(folder, name) for name in [*dirs, *files] if not name.endswith(".pyc"))
    return found


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.language in PYTHON], ids=lambda b: b.name)
def test_python_block_runs_as_written(block: Block, user_environment: None) -> None:
    before = _tree()
    run_python(block, filename=str(README))
    assert _tree() - before == set(), f"README.md {block.name} left files in the repository"


@pytest.mark.parametrize(("page", "block"), [(p, b) for p, b in PAGE_BLOCKS if b.language in PYTHON],
                         ids=lambda x: x.name if isinstance(x, Path) else getattr(x, "name", str(x)))
def test_docs_python_block_runs_as_written(page: Path, block: Block, user_environment: None) -> None:
    """A block tagged ```` ```python fragment ```` (a piece of a program, e.g. one needing an exporter package) is
    compiled, not run; every other Python block of a docs page runs as README's do."""
    if block.fragment:
        compile(block.code, f"{page.name} {block.name}", "exec")
        return
    before = _tree()
    run_python(block, filename=str(page))
    assert _tree() - before == set(), f"{page.name} {block.name} left files in the repository"


@pytest.mark.slow
def test_the_record_commands_work_on_the_module_shown(user_environment: None, tmp_path: Path) -> None:
    """The record section's Python block, saved as the file it names, is what its shell block records."""
    section = [b for b in blocks(ROOT / "docs" / "record-and-replay.md") if b.section == "Record and replay"]
    module = next(b for b in section if b.language in PYTHON)
    commands = next(b for b in section if b.language in SHELL)
    (tmp_path / "weather_app.py").write_text(module.code, encoding="utf-8")
    for line in commands.code.splitlines():
        argv = shlex.split(line, comments=True)
        assert argv[0] == "strands-agui", line
        done = subprocess.run([sys.executable, "-m", "strands_agui.tooling.cli", *argv[1:]], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (line, done.stderr)
        assert "RUN_FINISHED" in done.stdout, line
