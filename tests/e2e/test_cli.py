"""The strands-agui command line: replay (jsonl, sse, trace), record, diagram, and how it reports mistakes: run as
a user runs it (a subprocess), each ordinary mistake is one line on stderr naming the problem and the fix."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from strands import Agent

from strands_agui import read_log
from strands_agui.tooling.cli import main
from strands_agui.tooling.scripted import Fail, ScriptedModel, Text
from tests.oracles import assert_valid_sse
from tests.support.cli import assert_explains, cli, cli_in_process
from tests.support.paths import REPO, TESTS

FIXTURES = TESTS / "fixtures"


ROOT = REPO


@pytest.mark.slow
def test_replay_prints_a_jsonl_stream() -> None:
    done = cli("replay", str(FIXTURES / "plain_text.jsonl"))
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"


@pytest.mark.slow
def test_replay_sse_passes_both_oracles_and_trace_goes_to_stderr() -> None:
    done = cli("replay", str(FIXTURES / "backend_tool.jsonl"), "--format", "sse", "--trace")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("data: {") and "\r\n" not in done.stdout
    assert_valid_sse(done.stdout.encode())
    assert "close_tool_call" in done.stderr and "=> finished" in done.stderr


@pytest.mark.slow
def test_replay_with_config_runs_the_hooks(tmp_path: Path) -> None:
    done = cli("replay", str(FIXTURES / "state_hooks.jsonl"), "--config", "tests.support.scenarios:STATE_HOOKS_CONFIG",
               cwd=REPO)
    assert done.returncode == 0, done.stderr
    snapshots = [e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "STATE_SNAPSHOT"]
    assert snapshots[-1]["snapshot"]["saved"] is True


def test_record_then_replay_gives_the_same_stream(tmp_path: Path, capsys) -> None:
    log = tmp_path / "hello.jsonl"
    assert main(["record", "tests.support.scenarios:PLAIN_AGENT", "--prompt", "Hi", "-o", str(log)]) == 0
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
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run_machine.dot", "run_machine.mmd", "run_machine.svg",
                                                          "served_run.dot", "served_run.mmd", "served_run.svg"]


# ---------------------------------------------------------------------------------------------- mistakes


def test_replay_refuses_what_is_not_a_complete_log_and_says_what_to_do(tmp_path: Path) -> None:
    """One process per mistake is slow, so the replay mistakes go through `main` in-process, printing exactly
    what the command prints; the subprocess tests below prove the same path end to end."""
    complete = (FIXTURES / "plain_text.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cases = {
        "missing.jsonl": None,
        "garbage.jsonl": bytes(range(256)) * 8,
        "empty.jsonl": b"",
        "notes.jsonl": b"just some notes\n",
        "truncated.jsonl": "".join(complete[:-3]).encode(),
    }
    expected = {
        "missing.jsonl": ("no such file", "strands-agui record"),
        "garbage.jsonl": ("not a strands-agui log", "not UTF-8"),
        "empty.jsonl": ("not a strands-agui log", "empty"),
        "notes.jsonl": ("not a strands-agui log", "line 1: invalid JSON"),
        "truncated.jsonl": ("without its __end__ marker", "--partial"),
    }
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        done = cli_in_process(["replay", str(tmp_path / name)])
        assert_explains(done, name, *expected[name])


@pytest.mark.slow
def test_a_truncated_log_replays_on_purpose_with_partial(tmp_path: Path) -> None:
    lines = (FIXTURES / "backend_tool.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "cut.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
    done = cli("replay", str(tmp_path / "cut.jsonl"), "--partial")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[-1]["type"] == "RUN_FINISHED"
    assert_explains(cli("replay", str(tmp_path / "cut.jsonl")), "cut.jsonl", "--partial")


@pytest.mark.slow
def test_replay_of_binary_garbage_explains_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    (tmp_path / "garbage.jsonl").write_bytes(bytes(range(256)) * 8)
    assert_explains(cli("replay", str(tmp_path / "garbage.jsonl")), "not a strands-agui log")
    debug = cli("replay", str(tmp_path / "garbage.jsonl"), "--debug")
    assert debug.returncode == 2 and "Traceback" in debug.stderr and "UnicodeDecodeError" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1].startswith("strands-agui: error: ")


@pytest.mark.slow
def test_record_of_what_does_not_exist_explains(tmp_path: Path) -> None:
    out = str(tmp_path / "run.jsonl")
    assert_explains(cli("record", "no_such_module:agent", "--prompt", "Hi", "-o", out, cwd=ROOT),
                    "no module named 'no_such_module'", "run from the directory")
    assert_explains(cli_in_process(["record", "tests.support.scenarios:PLAIN_AGNET", "--prompt", "Hi", "-o", out]),
                    "has no attribute 'PLAIN_AGNET'", "did you mean tests.support.scenarios:PLAIN_AGENT?")
    assert_explains(cli_in_process(["record", "tests.support.scenarios", "--prompt", "Hi", "-o", out]),
                    "is not MODULE:ATTRIBUTE")
    assert_explains(cli_in_process(["record", "tests.support.scenarios:PLAIN_AGENT", "-o", out]), "--prompt TEXT")
    assert_explains(cli_in_process(["record", "tests.support.scenarios:PLAIN_AGENT", "--prompt", "Hi", "-o",
                                    str(tmp_path / "no" / "dir.jsonl")]), "cannot write", "existing")


@pytest.mark.slow
def test_record_exits_non_zero_when_the_run_ends_in_run_error(tmp_path: Path) -> None:
    log = tmp_path / "failed.jsonl"
    done = cli("record", "tests.e2e.test_cli:FAILING_AGENT", "--prompt", "Hi", "-o", str(log), cwd=ROOT)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("strands-agui: error: the run ended in RUN_ERROR "
                                                           "STRANDS_ERROR: RuntimeError: provider down")
    assert json.loads(done.stdout.splitlines()[-1])["type"] == "RUN_ERROR"
    assert read_log(log).exception == {"type": "RuntimeError", "message": "provider down"}


@pytest.mark.slow
def test_bad_flags_and_a_missing_app_are_one_line(tmp_path: Path) -> None:
    assert_explains(cli("replay", str(FIXTURES / "plain_text.jsonl"), "--fromat", "sse"),
                    "unrecognized arguments: --fromat", "--help")
    assert_explains(cli_in_process(["serve", "--port", "eighty"]), "invalid int value: 'eighty'")
    assert_explains(cli_in_process(["frobnicate"]), "invalid choice: 'frobnicate'")
    assert_explains(cli_in_process(["serve", "--pause-retention", "0"]), "--pause-retention 0.0", "> 0")
    assert_explains(cli_in_process(["serve", "--app", "strands_agui.examples.demo:apq"]),
                    "has no attribute 'apq'", "did you mean strands_agui.examples.demo:app?")
    assert_explains(cli_in_process(["replay", str(FIXTURES / "plain_text.jsonl"), "--config",
                                    "tests.support.scenarios:PLAIN_AGENT"]), "not a StrandsAgentConfig")
    (tmp_path / "input.json").write_text('{"messages": [{"role": "user"}]}', encoding="utf-8")
    assert_explains(cli_in_process(["replay", str(FIXTURES / "plain_text.jsonl"), "--input",
                                    str(tmp_path / "input.json")]), "is not a RunAgentInput", "messages.0")


@pytest.mark.slow
def test_serve_on_a_busy_port_fails_before_claiming_to_serve() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = cli("serve", "--port", str(port))
    assert_explains(done, f"port {port} on 127.0.0.1 is already in use", "--port")
    assert "serving" not in done.stderr


@pytest.mark.slow
def test_serve_of_an_app_that_does_not_exist_explains(tmp_path: Path) -> None:
    assert_explains(cli("serve", "--app", "my_app:app", cwd=tmp_path), "no module named 'my_app'")


FAILING_AGENT = Agent(model=ScriptedModel([[Text("Let me see"), Fail(RuntimeError("provider down"))]]),
                      callback_handler=None)
