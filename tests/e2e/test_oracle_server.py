"""The official-client oracle as a long-lived process (``agui_client_check.mjs --serve``, see
``tests/oracles/__init__.py``): checks through one server do not see each other, it survives a failing or
crashing check, and the pool behind ``check_official_client`` replaces, times out and cleans up its servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import tests.oracles as oracles
from tests.oracles import CLIENT_DIR, CLIENT_SCRIPT, CLIENTS, CURRENT, LEGACY, check_official_client
from tests.support.paths import REPO
from tests.support.processes import start, stop

REPO = REPO
INPUT = {"threadId": "thread-1", "runId": "run-1"}  # pinned, so two checks of one stream report the same


def stream(text: str = "Hello", *, extra: dict[str, Any] | None = None, finished: bool = True) -> list[dict]:
    events = [
        {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", **(extra or {})},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "RUN_FINISHED", "threadId": "thread-1", "runId": "run-1"},
    ]
    return events if finished else events[:-1]


def write(path: Path, events: list[dict]) -> str:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


@contextmanager
def server(client: str, *node_args: str) -> Iterator[Any]:
    """A bare ``--serve`` process; yields ``ask(argv) -> answer``."""
    proc = start([oracles._node(), *node_args, str(CLIENT_SCRIPT), "--serve"], cwd=CLIENT_DIR, text=True,
                 env={**os.environ, "AGUI_CLIENT_DIR": str(CLIENTS[client])},
                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ids = iter(range(1, 1000))

    def ask(argv: list[str]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        request_id = next(ids)
        proc.stdin.write(json.dumps({"id": request_id, "argv": argv}) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == request_id
        return answer

    try:
        yield ask
        _, ask.stderr = proc.communicate(input="", timeout=30)  # type: ignore[attr-defined]  # stdin closed: it ends
        assert proc.returncode == 0, ask.stderr  # type: ignore[attr-defined]
    finally:
        stop(proc)


@pytest.fixture(params=[CURRENT, LEGACY])
def client(request: pytest.FixtureRequest) -> str:
    oracles._ensure_client_installed(request.param)
    return str(request.param)


# ------------------------------------------------------------------------------------------ the --serve mode


def test_a_failing_check_does_not_leak_into_the_next(client: str, tmp_path: Path) -> None:
    (tmp_path / "input.json").write_text(json.dumps(INPUT))
    inp = str(tmp_path / "input.json")
    unterminated = write(tmp_path / "unterminated.jsonl", stream(finished=False))
    unknown_field = write(tmp_path / "unknown_field.jsonl", stream(extra={"extra": 1}))
    valid = write(tmp_path / "valid.jsonl", stream())
    with server(client) as ask:
        first = ask([unterminated, inp, "--strict"])
        assert first["exitCode"] == 1 and first["report"]["ok"] is False
        assert first["report"]["outcome"] == "no_terminal_event"
        second = ask([valid, inp, "--strict"])
        assert second["exitCode"] == 0 and second["report"]["ok"] is True
        assert second["report"]["outcome"] == "success" and second["report"]["strict_findings"] == []
        # the client's warnings of one check stay in its report
        if client == CURRENT:  # 0.0.59 strips unknown fields without a word
            third = ask([unknown_field, inp, "--strict"])
            assert third["exitCode"] == 1
            assert any("/extra" in w for w in third["report"]["client_warnings"])
        fourth = ask([valid, inp, "--strict"])
        assert fourth["exitCode"] == 0 and fourth["report"]["client_warnings"] == []
        assert fourth["report"] == second["report"]


def test_the_same_stream_twice_gives_the_same_report(client: str, tmp_path: Path) -> None:
    (tmp_path / "input.json").write_text(json.dumps(INPUT))
    golden = str(REPO / "tests" / "golden" / "backend_tool.jsonl")
    argv = [golden, str(tmp_path / "input.json"), "--strict"]
    with server(client) as ask:
        first, second = ask(argv), ask(argv)
    assert first["exitCode"] == second["exitCode"] == 0
    assert first["report"] == second["report"]
    # ... and the report the CLI prints
    cli = subprocess.run(["node", str(CLIENT_SCRIPT), *argv], cwd=CLIENT_DIR, capture_output=True, text=True,
                         env={**os.environ, "AGUI_CLIENT_DIR": str(CLIENTS[client])}, timeout=120, check=False)
    assert cli.returncode == 0 and json.loads(cli.stdout) == first["report"]


def test_a_crashing_check_or_bad_request_does_not_kill_the_server(tmp_path: Path) -> None:
    valid = write(tmp_path / "valid.jsonl", stream())
    with server(CURRENT) as ask:
        crashed = ask([valid, "--events-out", str(tmp_path / "no" / "such" / "dir.jsonl")])  # writeFileSync throws
        assert crashed["exitCode"] == 2
        assert crashed["report"]["kind"] == "internal_error" and "ENOENT" in crashed["report"]["error"]["message"]
        usage = ask(["--no-such-flag"])
        assert usage["exitCode"] == 2 and usage["report"] is None and "unknown flag --no-such-flag" in usage["stderr"]
        no_stdin = ask(["-"])  # stdin carries the requests
        assert no_stdin["exitCode"] == 2 and "request channel" in no_stdin["stderr"]
        assert ask([valid, "--strict"])["report"]["ok"] is True


# Checks that leave stray async failures behind: parsing an event whose text says "stray-reject" rejects a
# promise nobody awaits, "stray-late" throws from a timer once the check is answered.
STRAY = """
const parse = JSON.parse;
JSON.parse = function (text, ...rest) {
  const t = typeof text === "string" ? text : "";
  if (t.includes("stray-reject")) Promise.reject(new Error("stray rejection"));
  if (t.includes("stray-late")) setTimeout(() => { throw new Error("late throw"); }, 1000);
  return parse.call(this, text, ...rest);
};
"""


def test_stray_async_failures_fail_their_own_check_only(tmp_path: Path) -> None:
    (tmp_path / "stray.mjs").write_text(STRAY)
    valid = write(tmp_path / "valid.jsonl", stream())
    rejecting = write(tmp_path / "rejecting.jsonl", stream("stray-reject"))
    late = write(tmp_path / "late.jsonl", stream("stray-late"))
    with server(CURRENT, "--import", (tmp_path / "stray.mjs").as_uri()) as ask:
        failed = ask([rejecting, "--strict"])  # what would end the CLI fails this check, and only it
        assert failed["exitCode"] == 2 and failed["report"]["kind"] == "internal_error"
        assert "unhandled rejection: Error: stray rejection" in failed["report"]["error"]["message"]
        assert ask([valid, "--strict"])["exitCode"] == 0
        assert ask([late, "--strict"])["exitCode"] == 0  # its timers throw once it is answered ...
        time.sleep(1.5)
        after = ask([valid, "--strict"])  # ... which neither kills the server nor fails the next check
        assert after["exitCode"] == 0 and after["report"]["client_warnings"] == []
    assert "uncaught exception: Error: late throw" in ask.stderr and "after its check was answered" in ask.stderr


# ------------------------------------------------------------------------------------------ the pool


def servers(client: str = CURRENT) -> list[oracles._CheckServer]:
    return list(oracles._pool(client)._all)


def test_a_dead_server_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGUI_ORACLE_SERVER", raising=False)
    check_official_client(stream())
    for s in servers():
        s.proc.kill()
        s.proc.wait()
    assert check_official_client(stream("again"))["messages"][0]["content"] == "again"
    assert all(s.alive() for s in servers())


def test_an_overrun_check_fails_and_its_server_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGUI_ORACLE_SERVER", raising=False)
    check_official_client(stream())
    before = {s.proc.pid for s in servers()}
    monkeypatch.setattr(oracles, "_NODE_TIMEOUT_S", 0)
    with pytest.raises(subprocess.TimeoutExpired):
        check_official_client(stream())
    monkeypatch.setattr(oracles, "_NODE_TIMEOUT_S", 120)
    assert check_official_client(stream())["ok"] is True
    assert len(before - {s.proc.pid for s in servers()}) == 1  # the one that overran is gone


def test_the_switch_falls_back_to_one_process_per_check(monkeypatch: pytest.MonkeyPatch) -> None:
    served = check_official_client(stream(), input=INPUT)
    monkeypatch.setenv("AGUI_ORACLE_SERVER", "0")
    monkeypatch.setattr(oracles, "_pool", lambda client: pytest.fail("the switch is off"))
    one_off = check_official_client(stream(), input=INPUT)
    assert {**one_off, "url": "<temp file>"} == {**served, "url": "<temp file>"}
    with pytest.raises(AssertionError, match="stream ended without RUN_FINISHED"):
        check_official_client(stream(finished=False))


def test_no_server_outlives_the_python_process() -> None:
    code = (
        "import tests.oracles as o\n"
        "o.check_official_client_many([[{'type': 'RUN_STARTED', 'threadId': 't', 'runId': 'r'},"
        " {'type': 'RUN_FINISHED', 'threadId': 't', 'runId': 'r'}]] * 4)\n"
        "o.check_official_client([{'type': 'RUN_STARTED', 'threadId': 't', 'runId': 'r'},"
        " {'type': 'RUN_FINISHED', 'threadId': 't', 'runId': 'r'}], client=o.LEGACY)\n"
        "print(*[s.proc.pid for p in o._pools.values() for s in p._all])\n"
    )
    env = {**os.environ, "AGUI_ORACLE_SERVER": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    pids = [int(p) for p in done.stdout.split()]
    assert 2 <= len(pids) <= 3  # up to two of 1.0.0, one of 0.0.59
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
