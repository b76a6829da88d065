"""docs/copilotkit.md shows what the browser test runs: every line of its js/jsx blocks is a line of the
runtime or the page in tests/frontends/ (so a snippet cannot drift from the code the test drives)."""

from __future__ import annotations

import pytest

from tests.support.markdown import blocks, run_python
from tests.support.paths import REPO

ROOT = REPO
DOC = ROOT / "docs" / "copilotkit.md"
FRONTENDS = ROOT / "tests" / "frontends"
SOURCES = [FRONTENDS / "runtime.mjs", FRONTENDS / "strands-runner.mjs", *sorted((FRONTENDS / "src").glob("*.jsx"))]
SNIPPETS = [b for b in blocks(DOC) if b.language in {"js", "jsx"}]


def source_lines() -> set[str]:
    return {line.strip() for path in SOURCES for line in path.read_text(encoding="utf-8").splitlines()}


def test_the_doc_shows_the_runtime_and_both_pages() -> None:
    assert [b.section for b in SNIPPETS] == ["The runtime", "The page, v1 API", "The page, v2 hooks",
                                             "Restoring a conversation"]


@pytest.mark.parametrize("block", SNIPPETS, ids=lambda b: b.section)
def test_every_snippet_line_is_in_the_tested_sources(block) -> None:  # noqa: ANN001 - a markdown Block
    known = source_lines()
    missing = [line for line in block.code.splitlines() if line.strip() and line.strip() not in known]
    assert not missing, f"docs/copilotkit.md {block.name}: not in tests/frontends: {missing}"


@pytest.mark.parametrize("block", [b for b in blocks(DOC) if b.language == "python"], ids=lambda b: b.section)
def test_python_snippets_run(block) -> None:  # noqa: ANN001 - a markdown Block
    run_python(block, filename="docs/copilotkit.md")
