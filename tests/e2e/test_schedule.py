"""The order ``make test`` hands files to its workers (``tests/support/schedule.py``): the longest first."""

from __future__ import annotations

from types import SimpleNamespace

from tests.support.paths import REPO
from tests.support.schedule import LONGEST, longest_first


def test_every_file_named_longest_is_a_test_file() -> None:
    assert [path for path in LONGEST if not (REPO / path).is_file()] == []


def test_make_test_keeps_the_collections_order() -> None:
    """Without ``--no-loadscope-reorder`` xdist sorts the files by their number of tests again."""
    assert "--dist loadfile --no-loadscope-reorder" in (REPO / "Makefile").read_text()


def test_the_longest_file_comes_first_then_the_most_tests_and_each_files_tests_keep_their_order() -> None:
    long = next(iter(LONGEST))
    names = ["tests/a.py::one", "tests/b.py::one", "tests/b.py::two", f"{long}::first", f"{long}::second",
             "tests/c.py::one"]
    items = [SimpleNamespace(nodeid=name) for name in names]
    longest_first(items, lambda item: item.nodeid.split("::")[0])
    assert [item.nodeid for item in items] == [f"{long}::first", f"{long}::second", "tests/b.py::one",
                                              "tests/b.py::two", "tests/a.py::one", "tests/c.py::one"]
