"""The strands-agui command line: replay (jsonl, sse, trace), record, diagram."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from strands_agui import read_log
from strands_agui.tooling.cli import main
from tests.oracles import assert_valid_sse

FIXTURES = Path(__file__).parent / "fixtures"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "strands_agui.tooling.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_replay_prints_a_jsonl_stream() -> None:
    done = cli("replay", str(FIXTURES / "plain_text.jsonl"))
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"


def test_replay_sse_passes_both_oracles_and_trace_goes_to_stderr() -> None:
    done = cli("replay", str(FIXTURES / "backend_tool.jsonl"), "--format", "sse", "--trace")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("data: {") and "\r\n" not in done.stdout
    assert_valid_sse(done.stdout.encode())
    assert "close_tool_call" in done.stderr and "=> finished" in done.stderr


def test_replay_with_config_runs_the_hooks(tmp_path: Path) -> None:
    done = cli("replay", str(FIXTURES / "state_hooks.jsonl"), "--config", "tests.scenarios:STATE_HOOKS_CONFIG",
               cwd=Path(__file__).parent.parent)
    assert done.returncode == 0, done.stderr
    snapshots = [e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "STATE_SNAPSHOT"]
    assert snapshots[-1]["snapshot"]["saved"] is True


def test_record_then_replay_gives_the_same_stream(tmp_path: Path, capsys) -> None:
    log = tmp_path / "hello.jsonl"
    assert main(["record", "tests.scenarios:PLAIN_AGENT", "--prompt", "Hi", "-o", str(log)]) == 0
    recorded = capsys.readouterr().out
    run = read_log(log)
    assert run.input_data is not None and run.input_data.messages[0].content == "Hi"
    assert main(["replay", str(log)]) == 0
    replayed = capsys.readouterr().out

    def strip(text: str) -> list[str]:
        return [e["type"] + e.get("delta", "") for e in map(json.loads, text.splitlines())]

    assert strip(replayed) == strip(recorded)


def test_diagram_writes_the_three_files(tmp_path: Path) -> None:
    assert main(["diagram", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run_machine.dot", "run_machine.mmd", "run_machine.svg"]
