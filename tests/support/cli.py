"""Running the command line in tests: as a subprocess (``cli``), in process (``cli_in_process``), and what a
mistake must look like (``assert_explains``: one stderr line, no traceback)."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from strands_agui.tooling.cli import main


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "strands_agui.tooling.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def assert_explains(done: subprocess.CompletedProcess[str], *fragments: str, status: int = 2) -> None:
    """Exit ``status``, nothing on stdout, and one stderr line holding every fragment (no traceback)."""
    assert done.returncode == status, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("strands-agui: error: "), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in done.stderr and done.stdout == ""


def cli_in_process(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """`main(argv)` with stdout and stderr captured, as a CompletedProcess (same code path as the command)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())
