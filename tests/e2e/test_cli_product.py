"""The command line as a new user meets it: errors with one prefix, a startup line that says where paused runs
are kept, ``--partial`` that still refuses what is no log at all."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from strands_agui.tooling.cli import main
from tests.support.paths import TESTS
from tests.support.processes import first_line, running

FIXTURES = TESTS / "fixtures"


def test_a_bad_flag_is_one_line_with_one_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURES / "plain_text.jsonl"), "--fromat", "sse"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == ("strands-agui: error: unrecognized arguments: --fromat sse: did you mean --format? (see "
                    "`strands-agui replay --help`)"), line
    assert main(["replay"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("strands-agui: error: the following arguments are required: LOG.jsonl: see "
                           "`strands-agui replay --help`"), line


@pytest.mark.parametrize(("content", "problem"), [
    ('{"a": 1}\n{"b": 2}\n', "none of its 2 line(s) is a Strands event"),
    ("just some notes\n", "invalid JSON"),
    ("", "the log is empty"),
])
def test_partial_refuses_what_is_not_a_log_at_all(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str,
                                                  problem: str) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text(content, encoding="utf-8")
    assert main(["replay", str(path), "--partial"]) == 2
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert out == "" and line.startswith(f"strands-agui: error: {path} is not a strands-agui log: ") and problem in line
    assert line.count("not a strands-agui log") == 1, line


def test_partial_still_replays_a_headerless_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (FIXTURES / "plain_text.jsonl").read_text(encoding="utf-8").splitlines()[1:-3]  # no header, cut short
    (tmp_path / "old.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(tmp_path / "old.jsonl"), "--partial"]) == 0
    assert '"type":"RUN_STARTED"' in capsys.readouterr().out


def test_the_startup_line_says_where_paused_runs_are_kept(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "STRANDS_AGUI_SESSIONS": str(tmp_path / "pauses")}
    argv = [sys.executable, "-m", "strands_agui.tooling.cli", "serve", "--port", str(port)]
    with running(argv, first=signal.SIGINT, stderr=subprocess.PIPE, text=True, env=env) as server:
        line = first_line(server.stderr, 120)  # what the user sees first, however long a busy machine takes
    assert line.startswith(f"strands-agui: serving strands_agui.examples.demo:app on http://127.0.0.1:{port}/")
    assert line.rstrip().endswith(f"paused runs are kept in {tmp_path / 'pauses'}"), line
