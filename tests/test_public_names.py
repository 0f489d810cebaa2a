"""No two public classes of `agent_evolve` share a name, so a name says which class it is wherever it is read.

A public class is a top-level, non-underscore `class` statement in a module of the package; the modules of shipped
task data (`benchmarks/suites/data`, code the agents under test work on) are not part of the package's API.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "agent_evolve"
TASK_DATA = PACKAGE / "benchmarks" / "suites" / "data"


def public_classes() -> dict[str, list[str]]:
    """Each public class name with the modules (relative paths) that define it."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        if TASK_DATA in path.parents:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found[node.name].append(str(path.relative_to(PACKAGE)))
    return found


def test_no_two_public_classes_share_a_name() -> None:
    shared = {name: paths for name, paths in public_classes().items() if len(paths) > 1}
    assert not shared, f"public classes defined in more than one module (rename one): {shared}"


def test_the_scan_sees_the_package() -> None:
    classes = public_classes()
    assert "EvolutionEngine" in classes and "AgentWorkspace" in classes
