"""The command line explains itself (issue 28, item 7): every verb and option has a description, help and its
default; a misspelt flag, verb or choice gets "did you mean"; an app given as an agent (and the reverse) is one
clear line; ``record`` says where it wrote; the console's Trace file is told apart from a Log; a provider's missing
package gets its install line; ``diagram --no-svg`` never advises Graphviz; ``serve --reload`` reloads; ``make run``
installs quietly, then the startup line."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from strands_agui.tooling.cli import main, parser
from tests.support.cli import assert_explains, cli_in_process
from tests.support.paths import REPO, TESTS
from tests.support.processes import first_line, running

ROOT = REPO
FIXTURES = TESTS / "fixtures"
VERBS = ("serve", "record", "replay", "diagram")


def _verbs() -> dict[str, argparse.ArgumentParser]:
    (verbs,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(verbs.choices)


def test_every_verb_and_option_has_a_description_help_and_default() -> None:
    root = parser()
    assert root.description and "strands-agui serve" in root.description
    verbs = _verbs()
    assert tuple(verbs) == VERBS
    for name, verb in verbs.items():
        assert verb.description and len(verb.description) > 60, name
        for action in verb._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            where = f"{name} {'/'.join(action.option_strings) or action.dest}"
            assert action.help and len(action.help) > 10, where
            if action.option_strings and not action.required:
                assert "default" in action.help or "required" in action.help, f"{where}: say its default"


@pytest.mark.parametrize("verb", VERBS)
def test_each_help_page_prints_and_exits_0(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([verb, "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: strands-agui {verb}") and "(default:" in text


@pytest.mark.parametrize(("argv", "meant"), [
    (["serve", "--prot", "9000"], "did you mean --port? (see `strands-agui serve --help`)"),
    (["serve", "--reloda"], "did you mean --reload?"),
    (["serv"], "invalid choice: 'serv'"),
    (["replay", "run.jsonl", "--fromat", "sse"], "did you mean --format? (see `strands-agui replay --help`)"),
    (["replay", "run.jsonl", "--format", "ssee"], "did you mean sse?"),
])
def test_a_misspelling_gets_did_you_mean(argv: list[str], meant: str) -> None:
    done = cli_in_process(argv)
    assert_explains(done, meant)
    if argv == ["serv"]:
        assert_explains(done, "did you mean serve?")


def test_an_unknown_flag_with_nothing_close_only_points_at_help() -> None:
    done = cli_in_process(["serve", "--zzzzzz"])
    assert_explains(done, "unrecognized arguments: --zzzzzz: see `strands-agui serve --help`")
    assert "did you mean" not in done.stderr


def test_record_given_an_app_says_so_in_one_line(tmp_path: Path) -> None:
    done = cli_in_process(["record", "strands_agui.examples.demo:app", "--prompt", "Hi",
                           "-o", str(tmp_path / "run.jsonl")])
    assert_explains(done, "strands_agui.examples.demo:app is an ASGI app (FastAPI), not an agent",
                    "strands-agui serve --app strands_agui.examples.demo:app")
    assert "RUN_ERROR" not in done.stderr and "TypeError" not in done.stderr


def test_serve_given_an_agent_says_so_in_one_line() -> None:
    # a StrandsAgent, an Agent
    for agent in ("tests.support.scenarios:PLAIN_AGENT", "tests.e2e.test_cli:FAILING_AGENT"):
        assert_explains(cli_in_process(["serve", "--app", agent]), f"{agent} is an agent", "not an ASGI app",
                        "create_strands_app(agent)", f"strands-agui record {agent}")


def test_record_says_where_it_wrote_the_log(tmp_path: Path) -> None:
    log = tmp_path / "hello.jsonl"
    done = cli_in_process(["record", "tests.support.scenarios:PLAIN_AGENT", "--prompt", "Hi", "-o", str(log)])
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"strands-agui: wrote the run's log to {log}: replay it with `strands-agui replay {log}`, or open it in "
        "the console (Open a log)")
    assert log.exists() and json.loads(done.stdout.splitlines()[-1])["type"] == "RUN_FINISHED"


def test_replaying_the_consoles_trace_file_says_to_use_the_log(tmp_path: Path) -> None:
    trace = {"strands_agui_trace": 1, "threadId": "t", "runId": "r1", "status": "finished", "input": {},
             "steps": [{"event": {"type": "RUN_STARTED"}, "transitions": [], "subagents": [], "declined": []}]}
    (tmp_path / "trace-r1.json").write_text(json.dumps(trace, indent=2), encoding="utf-8")  # as the page writes it
    done = cli_in_process(["replay", str(tmp_path / "trace-r1.json")])
    assert_explains(done, "is a trace", "not a run log", "download the Log", "run-<runId>.jsonl")
    assert "invalid JSON" not in done.stderr


def test_a_provider_without_its_package_gets_the_pip_install_line(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "openai_app.py").write_text(
        "from strands import Agent\nfrom strands_agui import create_strands_app, StrandsAgent\n"
        "from strands_agui.tooling.models import model_from_env\n"
        "app = create_strands_app(StrandsAgent(Agent(model=model_from_env(), callback_handler=None)))\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("STRANDS_AGUI_MODEL", "openai:gpt-4o")
    monkeypatch.setitem(sys.modules, "openai", None)  # the `openai` package is not installed
    monkeypatch.delitem(sys.modules, "strands.models.openai", raising=False)
    done = cli_in_process(["serve", "--app", "openai_app:app"])
    assert_explains(done, "needs the 'openai' package", "pip install 'strands-agents[openai]'")
    assert "fix the module" not in done.stderr


@pytest.fixture
def no_graphviz_package(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A plain install (no graphviz package); the modules imported meanwhile (transitions' backends remember
    what they could import) are forgotten afterwards."""
    before = set(sys.modules)
    monkeypatch.setitem(sys.modules, "graphviz", None)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_a_model_variable_naming_no_provider_points_at_the_variable() -> None:
    env = {**os.environ, "STRANDS_AGUI_MODEL": "gemini:gemini-2.5-flash"}  # the examples read it when imported
    done = subprocess.run([sys.executable, "-m", "strands_agui.tooling.cli", "serve"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert_explains(done, "STRANDS_AGUI_MODEL='gemini:gemini-2.5-flash': unknown model provider 'gemini'",
                    "accepted: ", "bedrock:<model_id>")
    assert "fix the module" not in done.stderr


@pytest.mark.usefixtures("no_graphviz_package")
def test_diagram_no_svg_never_advises_graphviz(tmp_path: Path) -> None:
    done = cli_in_process(["diagram", "--out", str(tmp_path), "--no-svg"])
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "pip install 'strands-agui[diagrams]'" in line, line
    assert "Graphviz" not in line and "apt-get" not in line and "brew" not in line, line
    with_svg = cli_in_process(["diagram", "--out", str(tmp_path)])
    assert ("install Graphviz" in with_svg.stderr) is (shutil.which("dot") is None)  # the SVG needs `dot`: if absent


def test_reload_needs_one_worker() -> None:
    assert_explains(cli_in_process(["serve", "--reload", "--workers", "2"]), "--reload with --workers 2")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answer(url: str, deadline: float) -> str | None:
    while time.monotonic() < deadline:
        try:
            return str(httpx.get(url, timeout=2).json()["version"])
        except (httpx.HTTPError, ValueError):
            time.sleep(0.2)
    return None


@pytest.mark.slow
def test_serve_reload_restarts_when_the_app_changes(tmp_path: Path) -> None:
    app = tmp_path / "my_app.py"
    source = ('from fastapi import FastAPI\napp = FastAPI()\n@app.get("/v")\ndef v() -> dict:\n'
              '    return {"version": 1}\n')
    app.write_text(source, encoding="utf-8")
    port = _free_port()
    env = {**os.environ, "STRANDS_AGUI_SESSIONS": str(tmp_path / "pauses")}
    argv = [sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--app", "my_app:app", "--reload", "--port",
            str(port)]
    with running(argv, first=signal.SIGINT, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True) as server:
        line = first_line(server.stderr, 120)
        assert f"serving my_app:app on http://127.0.0.1:{port}/" in line and "reloading when a .py file" in line, line
        url = f"http://127.0.0.1:{port}/v"
        assert _answer(url, time.monotonic() + 60) == "1"
        time.sleep(1)  # a later mtime than the one the reloader saw
        app.write_text(source.replace('"version": 1', '"version": 2'), encoding="utf-8")
        deadline = time.monotonic() + 60
        while (seen := _answer(url, deadline)) != "2" and time.monotonic() < deadline:
            time.sleep(0.3)
        assert seen == "2"


PIP_OUTPUT = """Obtaining file:///src
  Installing build dependencies: started
Collecting strands-agents>=1.0
  Downloading strands_agents-1.20.0-py3-none-any.whl (300 kB)
Requirement already satisfied: fastapi in ./venv/lib/python3.11/site-packages (0.120.0)
Requirement already satisfied: pydantic in ./venv/lib/python3.11/site-packages (2.12.0)
Installing collected packages: strands-agents, strands-agui
Successfully installed strands-agents-1.20.0 strands-agui-0.1.0
"""


def _fake_venv(venv: Path, pip_status: int) -> None:
    """A .venv whose python prints what a cold `pip install -e .` prints (no network) and whose strands-agui
    prints the startup line: what `make run` shows of them is the Makefile's doing."""
    (venv / "bin").mkdir(parents=True)
    (venv / "pip-output.txt").write_text(PIP_OUTPUT, encoding="utf-8")
    python = venv / "bin" / "python"
    python.write_text(f"#!/bin/sh\ncat {venv / 'pip-output.txt'}\n"
                      f"[ {pip_status} = 0 ] || echo 'ERROR: No matching distribution found for strands-agents' >&2\n"
                      f"exit {pip_status}\n", encoding="utf-8")
    serve = venv / "bin" / "strands-agui"
    serve.write_text("#!/bin/sh\necho \"strands-agui: serving strands_agui.examples.demo:app on "
                     "http://127.0.0.1:8000/ (1 worker(s)); paused runs are kept in /tmp/s\" >&2\n", encoding="utf-8")
    python.chmod(0o755)
    serve.chmod(0o755)


def _make_run(venv: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["make", "--no-print-directory", "run", f"VENV={venv}"], cwd=ROOT, capture_output=True,
                          timeout=60)  # bytes: text mode would turn each \r into a newline
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_make_run_installs_quietly_then_prints_the_startup_line(tmp_path: Path) -> None:
    """A cold `make run`: one line saying what it installs, pip's progress overwriting itself on one line, then
    the startup line; none of pip's other output (it is in the venv's pip-run.log)."""
    venv = tmp_path / "venv"
    _fake_venv(venv, 0)
    done = _make_run(venv)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(">> installing what running needs (pip install -e .; a minute the first time)\n")
    progress = out.split("\n")[1]  # str.splitlines would split at each \r too
    assert "pip: Downloading strands_agents" in progress
    assert "pip: Installing collected packages" in progress and progress.count("\r\033[K") >= 4, repr(progress)
    assert "Requirement already satisfied" not in out and "Successfully installed" not in out
    assert out.count("\n") == 1 and out.endswith("\r\033[K"), repr(out)  # the progress line, cleared at the end
    (startup,) = done.stderr.splitlines()
    assert startup.startswith("strands-agui: serving strands_agui.examples.demo:app on http://127.0.0.1:8000/")
    assert "Successfully installed" in (venv / "pip-run.log").read_text(encoding="utf-8")
    again = _make_run(venv)  # installed: straight to the startup line
    assert again.returncode == 0 and again.stdout == "" and again.stderr.startswith("strands-agui: serving")


def test_make_run_shows_pips_output_when_the_install_fails(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _fake_venv(venv, 1)
    done = _make_run(venv)
    assert done.returncode != 0
    assert "ERROR: No matching distribution found for strands-agents" in done.stdout
    assert f">> pip failed (all of it: {venv}/pip-run.log)" in done.stdout
    assert "strands-agui: serving" not in done.stderr
