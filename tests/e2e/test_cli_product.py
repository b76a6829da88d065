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


def test_a_file_partial_would_refuse_is_not_offered_partial(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}\n', encoding="utf-8")  # no header, and no Strands event either
    assert main(["replay", str(path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--partial" not in line and "none of its 2 line(s) is a Strands event" in line, line
    lines = (FIXTURES / "plain_text.jsonl").read_text(encoding="utf-8").splitlines()[1:-3]
    (tmp_path / "old.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(tmp_path / "old.jsonl")]) == 2  # a headerless run: --partial replays it
    assert "replay what it holds with --partial" in capsys.readouterr().err


def test_events_in_redis_without_the_redis_extra_say_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("redis", "redis.asyncio"):
        monkeypatch.setitem(sys.modules, name, None)  # `import redis` fails, as without the redis extra
    assert main(["serve", "--resumable", "--events", "redis://127.0.0.1:1/0", "--port", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == ("strands-agui: error: --events redis://127.0.0.1:1/0 needs redis: pip install "
                                         "'strands-agui[redis]'"), err


def test_record_into_a_reader_that_stops_early_ends_quietly(tmp_path: Path) -> None:
    """``strands-agui record ... | head``: the closed pipe ends nothing halfway (no OpenTelemetry "Failed to detach
    context" tracebacks), the log is complete and the exit status 0."""
    env = {**os.environ, "STRANDS_AGUI_SCRIPTED_DELAY": "0.02", "STRANDS_AGUI_SESSIONS": str(tmp_path / "pauses")}
    log = tmp_path / "weather.jsonl"
    argv = [sys.executable, "-m", "strands_agui.tooling.cli", "record",
            "strands_agui.examples.backend_tool_rendering:agent", "--prompt", "Weather in Paris?", "-o", str(log)]
    with running(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as record:
        assert first_line(record.stdout, 120).startswith('{"type":"RUN_STARTED"')
        record.stdout.close()  # as `head -1` does
        err = record.stderr.read()
        status = record.wait(120)
    assert status in (0, 141) and "Traceback" not in err and "Failed to detach" not in err, err
    assert err.startswith(f"strands-agui: wrote the run's log to {log}"), err
    assert log.read_text(encoding="utf-8").rstrip().endswith('{"__end__":{"events":78}}')


def test_an_example_module_says_how_to_run_it_and_serves_nothing_for_help() -> None:
    done = subprocess.run([sys.executable, "-m", "strands_agui.examples.agentic_chat", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m strands_agui.examples.agentic_chat [-h] [--host HOST]")
    assert "--port PORT" in done.stdout and "Uvicorn running" not in done.stderr
