"""What a test starts, it stops, on every path (``tests/support/processes.py``): when the test body raises, the
process and what it started in its group are gone; one that ignores the polite signals is killed after a bound."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.support.processes import LIVE, first_line, running

# a parent that starts a child (as `serve --workers` does), prints both pids, then waits
FAMILY = ("import os, subprocess, sys, time\n"
          "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
          "print(os.getpid(), child.pid, flush=True)\n"
          "time.sleep(120)\n")
STUBBORN = ("import signal, time\n"
            "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "print('ready', flush=True)\n"
            "time.sleep(120)\n")


def gone(pid: int, seconds: float = 5.0) -> bool:
    """``pid`` no longer runs (reaped, or a zombie waiting for its new parent)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.02)
    return False


def test_what_a_test_started_is_stopped_when_its_body_raises() -> None:
    with pytest.raises(RuntimeError, match="the test failed"):
        with running([sys.executable, "-c", FAMILY], stdout=subprocess.PIPE, text=True) as proc:
            parent, child = (int(pid) for pid in first_line(proc.stdout, 60).split())
            raise RuntimeError("the test failed")
    assert proc.returncode is not None and gone(parent)
    assert gone(child), "the child it started in its group is stopped too"
    assert proc not in LIVE


def test_one_that_ignores_sigint_and_sigterm_is_killed_after_the_grace() -> None:
    started = time.monotonic()
    with running([sys.executable, "-c", STUBBORN], first=signal.SIGINT, grace=0.5, stdout=subprocess.PIPE,
                  text=True) as proc:
        assert first_line(proc.stdout, 60) == "ready\n"
    assert proc.returncode == -signal.SIGKILL and time.monotonic() - started < 30


def test_a_line_that_never_comes_fails_in_bounded_time() -> None:
    with running([sys.executable, "-c", "import time; time.sleep(120)"], stdout=subprocess.PIPE) as proc:
        started = time.monotonic()
        with pytest.raises(AssertionError, match="no line within 0.3 s"):
            first_line(proc.stdout, 0.3)
        assert time.monotonic() - started < 5
    assert proc.returncode is not None
