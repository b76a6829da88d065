"""Processes a test starts (a server, a proxy, a Node client): each in its own process group, stopped on every path.

``running(argv)`` starts one and stops it when the ``with`` block ends, however it ends: normally, on a failed
assert, on a timeout or on Ctrl-C. Stopping asks first (``first``, SIGTERM by default; SIGINT for what a user
would press Ctrl-C on), waits ``grace`` seconds, asks again with SIGTERM, then kills with SIGKILL; whatever the
process left in its group (uvicorn's workers, a reloader's child) is killed with it. A process still running when
the test process exits (a fixture torn down by nobody) is killed then (``atexit``).

``first_line(stream, seconds)`` reads what a process prints first without waiting forever: a test waits for the
line a user would see, never for a fixed time.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

LIVE: set[subprocess.Popen[Any]] = set()
"""The processes started here and not stopped yet."""


def start(argv: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(argv, **popen)`` in a new process group (its own session), remembered until stopped."""
    proc: subprocess.Popen[Any] = subprocess.Popen(list(argv), start_new_session=True, **popen)
    LIVE.add(proc)
    return proc


def _signal_group(proc: subprocess.Popen[Any], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):  # the group is gone
        pass


def stop(proc: subprocess.Popen[Any], *, first: int = signal.SIGTERM, grace: float = 10.0,
         close_streams: bool = True) -> int:
    """Stop ``proc`` and its process group: ``first``, then SIGTERM, each given ``grace`` seconds, then SIGKILL;
    then close its pipes (unless ``close_streams=False``: a reader thread of the caller's closes them). Returns its
    exit status; never raises for a process already gone."""
    for sig in dict.fromkeys((first, signal.SIGTERM, signal.SIGKILL)):
        if proc.poll() is not None:
            break
        _signal_group(proc, sig)
        try:
            proc.wait(grace if sig != signal.SIGKILL else 30)
        except subprocess.TimeoutExpired:
            continue
    _signal_group(proc, signal.SIGKILL)  # what the leader left behind in its group
    for stream in (proc.stdin, proc.stdout, proc.stderr) if close_streams else ():
        if stream is not None:
            stream.close()
    LIVE.discard(proc)
    return proc.returncode


@contextmanager
def running(argv: Sequence[str], *, first: int = signal.SIGTERM, grace: float = 10.0,
            **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """``argv`` running for the ``with`` block, stopped (:func:`stop`) however the block ends."""
    proc = start(argv, **popen)
    try:
        yield proc
    finally:
        stop(proc, first=first, grace=grace)


def first_line(stream: IO[Any], seconds: float) -> Any:
    """The next line of ``stream`` (``""`` / ``b""`` at its end); fails after ``seconds`` without one."""
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    assert got, f"no line within {seconds} s"
    return got[0]


@atexit.register
def stop_all() -> None:
    """Kill what is still running when the test process exits."""
    for proc in list(LIVE):
        stop(proc, first=signal.SIGKILL)
