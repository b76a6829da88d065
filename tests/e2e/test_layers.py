"""The layer picture holds: `lint-imports` (import-linter, contracts in pyproject.toml) passes on the package,
and fails when an import runs up the layers (the package's, or server/'s own) or closes a cycle (TYPE_CHECKING
imports included). And the picture a reader draws holds too: an import graph labelled by module name alone (the
last part of the dotted name, as a graph tool draws it) has no two modules under one name, no cycle and no
import up the layers.

The failing cases plant the import in a copy of the package and run the same checker with the same
pyproject.toml against the copy, so the contracts themselves are what is proved to fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

ROOT = REPO
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(src: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """Run the project's contracts (all, or those with the given ids) against the ``strands_agui`` package
    found under ``src``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    only = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo", *only],
        cwd=src, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A copy of the package's Python modules under ``tmp_path / "src"``."""
    shutil.copytree(ROOT / "src" / "strands_agui", tmp_path / "src" / "strands_agui",
                    ignore=shutil.ignore_patterns("__pycache__", "static", "*.proto", "*.pyi"))
    return tmp_path / "src"


def plant(src: Path, module: str, lines: str) -> None:
    path = src / "strands_agui" / module
    path.write_text(path.read_text(encoding="utf-8") + "\n" + lines + "\n", encoding="utf-8")


def test_the_package_keeps_its_layers_and_has_no_cycle() -> None:
    result = lint_imports(ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken." in result.stdout, result.stdout


def test_the_copy_checked_by_the_failing_cases_passes_unchanged(package_copy: Path) -> None:
    result = lint_imports(package_copy)
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_import_up_the_layers_breaks_the_layers_contract(package_copy: Path) -> None:
    plant(package_copy, "runtime/pause.py", "from ..tooling import cli  # noqa: E402")
    result = lint_imports(package_copy, "layers")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "strands_agui.runtime is not allowed to import strands_agui.tooling" in result.stdout, result.stdout
    assert "strands_agui.runtime.pause -> strands_agui.tooling.cli" in result.stdout


def test_the_base_vocabulary_imports_no_layer(package_copy: Path) -> None:
    plant(package_copy, "errors.py", "from .core import machine  # noqa: E402")
    result = lint_imports(package_copy, "layers")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "strands_agui.errors -> strands_agui.core.machine" in result.stdout


def test_a_module_outside_the_layers_breaks_the_layers_contract(package_copy: Path) -> None:
    (package_copy / "strands_agui" / "stray.py").write_text("X = 1\n", encoding="utf-8")
    result = lint_imports(package_copy, "layers")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "strands_agui.stray" in result.stdout


def test_a_cycle_hidden_under_type_checking_breaks_the_acyclic_contract(package_copy: Path) -> None:
    # The cycle runtime/building/run_agent.py <-> runtime/building/multiagent.py, as it was before copying.py (one way
    # at run time, the other only for the type checker): both count.
    plant(package_copy, "runtime/building/copying.py",
          "from typing import TYPE_CHECKING  # noqa: E402\nif TYPE_CHECKING:\n"
          "    from . import run_agent  # noqa: F401")
    result = lint_imports(package_copy, "acyclic")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "No cycles are allowed in strands_agui.runtime.building." in result.stdout, result.stdout
    assert "- .copying -> .run_agent (1 import)" in result.stdout


def test_the_transport_importing_a_route_above_it_breaks_the_server_contract(package_copy: Path) -> None:
    # streaming.py once named Observation (observability/) for the type checker: now streaming.Observer
    plant(package_copy, "server/transport/streaming.py",
          "from typing import TYPE_CHECKING  # noqa: E402\nif TYPE_CHECKING:\n"
          "    from ..observability.observation import Observation  # noqa: F401")
    result = lint_imports(package_copy, "server")
    assert result.returncode == 1, result.stdout + result.stderr
    said = " ".join(result.stdout.split())  # the report wraps long lines
    assert "strands_agui.server.transport.streaming -> strands_agui.server.observability.observation" in said, said


# ----------------------------------------------------------------------------- the graph by module name

LAYERS = ("config", "errors", "environment", "core", "runtime", "server", "tooling", "", "examples")
"""The package's layers, lowest first (the "layers" contract of pyproject.toml, the base vocabulary first); ""
is the package itself, the public API (``strands_agui/__init__.py``), over what it exports and under the
examples that import it."""


def graph_by_name() -> tuple[dict[str, str], set[tuple[str, str]]]:
    """The package's modules by their last name -> the full name, and the imports between those names."""
    import grimp

    graph = grimp.build_graph("strands_agui", exclude_type_checking_imports=False)
    names: dict[str, list[str]] = {}
    for module in graph.modules:
        names.setdefault(module.rpartition(".")[2], []).append(module)
    shared = {name: sorted(modules) for name, modules in names.items() if len(modules) > 1}
    assert not shared, f"modules a graph drawn by name cannot tell apart: {shared}"
    edges = {(importer.rpartition(".")[2], imported.rpartition(".")[2])
             for importer in graph.modules for imported in graph.find_modules_directly_imported_by(importer)}
    return {name: modules[0] for name, modules in names.items()}, edges


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1] if len(parts) > 1 else "")


def test_no_two_modules_share_a_name() -> None:
    graph_by_name()  # the two thread modules were one name, and so were the examples' app and the server package


def test_the_graph_drawn_by_module_name_has_no_cycle() -> None:
    import graphlib

    modules, edges = graph_by_name()
    order = graphlib.TopologicalSorter({name: set() for name in modules})
    for importer, imported in edges:
        if importer != imported:
            order.add(importer, imported)
    order.prepare()  # raises graphlib.CycleError naming the cycle


def test_the_graph_drawn_by_module_name_has_no_upward_import() -> None:
    modules, edges = graph_by_name()
    upward = sorted(f"{modules[a]} -> {modules[b]}" for a, b in edges if layer(modules[a]) < layer(modules[b]))
    assert not upward, upward


# ----------------------------------------------------------------------------- the tests keep the layers too

BELOW_THE_SERVER = ("core", "runtime")
"""The test folders of the layers under the server: what they prove holds without the HTTP side, so none of
their files imports ``strands_agui.server`` (nor a name the package serves from it, ``strands_agui._SERVED``).
import-linter checks the package only; this reads the tests' own imports, inside functions too."""


def server_imports(path: Path) -> list[str]:
    """The imports of the server in a test file: module names, and names the package re-exports from it."""
    import ast

    from strands_agui import _SERVED

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("strands_agui.server")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "strands_agui.server" or node.module.startswith("strands_agui.server."):
                found.append(node.module)
            elif node.module == "strands_agui":
                found += [f"strands_agui.{a.name}" for a in node.names if a.name in _SERVED or a.name == "server"]
    return found


def test_core_and_runtime_tests_never_import_the_server() -> None:
    tests = ROOT / "tests"
    found = {str(path.relative_to(ROOT)): names for folder in BELOW_THE_SERVER
             for path in sorted((tests / folder).rglob("*.py")) if (names := server_imports(path))}
    assert not found, f"tests below the server importing it (move them to tests/server/): {found}"


def test_the_check_of_test_imports_finds_each_form(tmp_path: Path) -> None:
    planted = tmp_path / "test_planted.py"
    planted.write_text("import strands_agui.server.app\nfrom strands_agui import StrandsAgent, create_strands_app\n"
                       "def f():\n    from strands_agui.server.transport import versions\n", encoding="utf-8")
    assert server_imports(planted) == ["strands_agui.server.app", "strands_agui.create_strands_app",
                                       "strands_agui.server.transport"]
