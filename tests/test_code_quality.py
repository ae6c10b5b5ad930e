"""The code keeps its promises: the engine is pure standard-library Python that type-checks
strictly, and the whole tree passes the linter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True,
                          check=False)


def test_the_tree_passes_the_linter() -> None:
    proc = run("ruff", "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_engine_type_checks_strictly() -> None:
    proc = run("mypy", "--strict", "--no-incremental", "engine")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    foreign = []
    for path in sorted((REPO / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "engine":
                    foreign.append(f"{path.name}: {name}")
    assert not foreign
