"""Every Python block of README.md and of docs/*.md runs as written, from the repo root, with no network and no
credentials.

Each block runs in a fresh namespace as ``__main__`` (as ``python block.py`` would), with no model configured
(``STRANDS_AGUI_MODEL`` unset: the scripted stand-in) and no AWS credentials reachable. A block may not leave
files behind in the repository. Only shell blocks (and the generated Mermaid diagram, checked by its own test)
are not run, so a Python block cannot escape by being tagged otherwise: an untagged or unknown block fails."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.markdown import GENERATED, PYTHON, SHELL, Block, blocks, run_python
from tests.support.paths import REPO
from tests.support.processes import first_line, running

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


# ------------------------------------------------------------------- the README's snippets, as their text says

SAVE_AS = re.compile(r"Save this as\s+`([\w.]+)`")


def snippets() -> list[tuple[str, Block, Block]]:
    """Each Python block of README with the file name its text gives it and the shell block that runs it."""
    lines = README.read_text(encoding="utf-8").splitlines()
    found = []
    for index, block in enumerate(BLOCKS):
        if block.language not in PYTHON:
            continue
        before = "\n".join(lines[(BLOCKS[index - 1].line if index else 0):block.line])
        names = SAVE_AS.findall(before)
        command = next((b for b in BLOCKS[index + 1:] if b.language in SHELL), None)
        assert names and command is not None and command.section == block.section, (
            f"README.md {block.name}: say `Save this as `FILE``: before it and the command that runs it after it")
        found.append((names[-1], block, command))
    return found


def test_the_first_screen_holds_the_two_commands_and_the_first_snippet() -> None:
    name, block, command = snippets()[0]
    first_screen = 60
    assert BLOCKS[0].line < block.line and command.line + len(command.code.splitlines()) <= first_screen
    assert [name for name, _, _ in snippets()] == ["my_app.py", "my_service.py", "test_weather.py"]


def test_every_snippet_imports_only_the_public_api() -> None:
    for _, block, _ in snippets():
        for line in block.code.splitlines():
            if line.startswith(("from strands_agui", "import strands_agui")):
                assert line.startswith("from strands_agui import "), line


def _commands(block: Block) -> list[list[str]]:
    """The block's commands, a line ending in a backslash continued on the next, as a shell reads them."""
    return [shlex.split(line, comments=True) for line in block.code.replace("\\\n", " ").splitlines() if line.strip()]


def _saved(tmp_path: Path, which: str) -> tuple[Path, list[list[str]]]:
    name, block, command = next(s for s in snippets() if s[0] == which)
    (tmp_path / name).write_text(block.code, encoding="utf-8")
    return tmp_path, _commands(command)


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STRANDS_AGUI_", "AWS_", "OPENAI_", "ANTHROPIC_"))}
    return {**env, "STRANDS_AGUI_SCRIPTED_DELAY": "0", "STRANDS_AGUI_SESSIONS": str(tmp_path / "sessions"),
            "AWS_EC2_METADATA_DISABLED": "true"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answer(server: subprocess.Popen[str], url: str, seconds: float = 120) -> httpx.Response:
    """``GET url`` once the server listens (the startup line comes before it binds)."""
    deadline = time.monotonic() + seconds
    while True:
        assert server.poll() is None, "the server exited"
        try:
            return httpx.get(url, timeout=30)
        except httpx.TransportError:
            assert time.monotonic() < deadline, f"nothing answered {url} within {seconds} s"
            time.sleep(0.1)


RUN = {"threadId": "t1", "runId": "r1", "state": {}, "tools": [], "context": [], "forwardedProps": {},
       "messages": [{"id": "u1", "role": "user", "content": "Weather in Paris?"}]}


@pytest.mark.slow
def test_the_serve_snippet_serves_the_console_and_the_agent(tmp_path: Path) -> None:
    folder, [argv] = _saved(tmp_path, "my_app.py")
    assert argv[:2] == ["strands-agui", "serve"], argv
    port = _free_port()
    with running([sys.executable, "-m", "strands_agui.tooling.cli", *argv[1:], "--port", str(port)], cwd=folder,
                 env=_env(tmp_path), stderr=subprocess.PIPE, text=True, first=signal.SIGINT) as server:
        assert f"serving my_app:app on http://127.0.0.1:{port}/" in first_line(server.stderr, 120)
        base = f"http://127.0.0.1:{port}"
        assert _answer(server, base + "/").status_code == 200
        assert [e["path"] for e in httpx.get(base + "/examples", timeout=30).json()] == ["/weather"]
        body = httpx.post(base + "/weather", json=RUN, headers={"Accept": "text/event-stream"}, timeout=60).text
    assert '"toolCallName":"get_weather"' in body and '"type":"RUN_FINISHED"' in body


@pytest.mark.slow
def test_the_embed_snippet_answers_the_curl_shown(tmp_path: Path) -> None:
    folder, [serve, ask] = _saved(tmp_path, "my_service.py")
    assert serve[0] == "uvicorn" and ask[0] == "curl", (serve, ask)
    port = str(_free_port())
    serve = [port if arg == "8001" else arg for arg in serve]
    with running([sys.executable, "-m", *serve], cwd=folder, env=_env(tmp_path), stderr=subprocess.PIPE,
                 text=True) as server:
        while "Uvicorn running on" not in (line := first_line(server.stderr, 120)):
            assert line, "uvicorn exited"
        ask = [arg.replace("127.0.0.1:8001", f"127.0.0.1:{port}") for arg in ask]
        done = subprocess.run(ask, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '"type":"TEXT_MESSAGE_CONTENT"' in done.stdout and '"type":"RUN_FINISHED"' in done.stdout, done.stdout


@pytest.mark.slow
def test_the_pytest_snippet_is_green_on_its_first_run(tmp_path: Path) -> None:
    folder, [argv] = _saved(tmp_path, "test_weather.py")
    assert argv[0] == "pytest", argv
    for attempt in ("records the log", "replays it"):
        env = {**_env(tmp_path), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # the snippet needs no plugin: a quick start
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv[1:]], cwd=folder,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "1 passed" in done.stdout, (attempt, done.stdout[-3000:])
        assert (folder / "weather.jsonl").is_file(), attempt


def test_the_readme_and_the_makefile_state_the_same_suite_time() -> None:
    """One measured number (docs/reliability.md), written in two places: a change to one is a change to both."""
    stated = re.compile(r"(\d+ min \d+ s)")
    readme = stated.findall(BLOCKS[0].code)
    makefile = stated.findall((ROOT / "Makefile").read_text(encoding="utf-8"))
    assert len(readme) == 1 and readme == makefile, (readme, makefile)


@pytest.mark.slow
def test_the_record_and_replay_recipe_is_green_on_its_first_run(tmp_path: Path) -> None:
    """docs/record-and-replay.md's module, saved as the file it names, run as it says (`pytest weather_app.py`):
    the first run records the log and keeps the golden file, the next replays the log against it."""
    (module,) = [b for b in blocks(ROOT / "docs" / "record-and-replay.md")
                 if b.section == "Record and replay" and b.language in PYTHON]
    (tmp_path / "weather_app.py").write_text(module.code, encoding="utf-8")
    env = {**_env(tmp_path), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    for attempt in ("records", "replays"):
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "weather_app.py"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and "1 passed" in done.stdout, (attempt, done.stdout[-3000:])
    assert (tmp_path / "weather.jsonl").is_file() and (tmp_path / "golden" / "weather.jsonl").is_file()
