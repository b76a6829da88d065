"""The fenced code blocks of a Markdown file, and running a Python block as a user pasting it would."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")
PYTHON = frozenset({"python", "py", "python3"})
SHELL = frozenset({"bash", "sh", "shell", "console", "zsh"})
GENERATED = frozenset({"mermaid"})
"""Blocks written by a tool from the code (the diagram), checked by their own test."""


@dataclass(frozen=True)
class Block:
    language: str
    code: str
    line: int
    section: str
    info: str = ""
    """The whole info string: ```` ```python fragment ```` marks a piece of a program (compiled, not run)."""

    @property
    def fragment(self) -> bool:
        return "fragment" in self.info.split()[1:]

    @property
    def name(self) -> str:
        return f"line {self.line} ({self.section})"


def blocks(path: Path) -> list[Block]:
    """Every fenced block with its info-string language, first line number and the heading above it."""
    found: list[Block] = []
    section = ""
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        match = FENCE.match(line)
        if match is None:
            index += 1
            continue
        indent, fence, start = len(match["indent"]), match["fence"], index + 2
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].strip() != fence:
            body.append(lines[index][indent:])
            index += 1
        language = (match["info"].split() or [""])[0].lower()
        found.append(Block(language, "\n".join(body) + "\n", start, section, match["info"].strip()))
        index += 1
    return found


def run_python(block: Block, namespace: dict[str, Any] | None = None, *, filename: str = "README.md") -> dict[str, Any]:
    """Execute ``block`` as a script (``__name__ == "__main__"``); a last bare expression is kept as ``_``.
    Tracebacks name the Markdown file and its own line numbers."""
    tree = ast.increment_lineno(ast.parse(block.code, filename=filename), block.line - 1)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        tree.body[-1] = ast.Assign(targets=[ast.Name("_", ast.Store())], value=last.value)
        ast.copy_location(tree.body[-1], last)
        ast.fix_missing_locations(tree)
    scope = {"__name__": "__main__", "__file__": filename} if namespace is None else namespace
    exec(compile(tree, filename, "exec"), scope)  # noqa: S102 - running the documentation
    return scope
