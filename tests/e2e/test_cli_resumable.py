"""``strands-agui serve --resumable``: a mistaken combination is one line, before anything is served (the
served behaviour: test_resumable_redis.py, which starts ``serve --resumable --events redis://...``)."""

from __future__ import annotations

import pytest

from tests.support.cli import assert_explains, cli_in_process


@pytest.mark.parametrize(("flags", "fragments"), [
    (["--events", "redis://127.0.0.1:6379/0"], ("--events and --detach-seconds need --resumable",)),
    (["--detach-seconds", "5"], ("need --resumable",)),
    (["--resumable", "--events", "http://example"], ("give a Redis URL",)),
    (["--resumable", "--workers", "2"], ("--workers > 1 needs --events",)),
    (["--resumable", "--detach-seconds", "-1"], ("give a number of seconds >= 0",)),
])
def test_serve_refuses_a_mistaken_resumable_setup_in_one_line(flags: list[str], fragments: tuple[str, ...]) -> None:
    assert_explains(cli_in_process(["serve", "--port", "1", *flags]), *fragments)
