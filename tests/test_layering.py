"""Imports flow one way between the top-level packages of `agent_evolve`, and no two of them import each other.

A top-level unit is the first path component under `src/agent_evolve` (a top-level module file is its own unit;
the package's `__init__.py` is `__init__`). Every import counts, those under `if TYPE_CHECKING:` included.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "agent_evolve"

LAYERS: list[tuple[str, ...]] = [
    ("types", "errors", "io", "config"),
    ("contract", "environments", "text", "stats", "task_order"),
    ("llm", "testing", "mcp"),
    ("protocol",),
    ("benchmarks",),
    ("engine",),
    ("agents",),
    ("algorithms",),
    ("seed_workspaces", "registry", "api", "cli", "experiment", "__init__", "userview", "report", "export",
     "tracking", "lift", "quick", "config_reference"),
]


def layer_of(unit: str) -> int:
    """The index of the layer that lists `unit`."""
    found = [index for index, units in enumerate(LAYERS) if unit in units]
    assert len(found) == 1, f"{unit} is in {len(found)} layers; list it in exactly one of LAYERS"
    return found[0]


def unit_of(path: Path, package: Path = PACKAGE) -> str:
    """The top-level unit a source file belongs to."""
    parts = path.relative_to(package).parts
    return parts[0] if len(parts) > 1 else path.stem


def is_unit(name: str, package: Path) -> bool:
    """Whether `agent_evolve.<name>` is a top-level package or module (not a name the root re-exports)."""
    return (package / name).is_dir() or (package / f"{name}.py").is_file()


def imported_units(path: Path, package: Path = PACKAGE) -> Iterator[str]:
    """The top-level units `path` imports, relative imports resolved, `TYPE_CHECKING` blocks included."""
    folder = path.relative_to(package.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = list(folder[: len(folder) - node.level + 1])
            names = [base + (node.module.split(".") if node.module else [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module.split(".") + [alias.name] for alias in node.names] if node.module == "agent_evolve" \
                else [node.module.split(".")]
        else:
            continue
        for parts in names:
            if parts[0] == "agent_evolve" and len(parts) > 1 and is_unit(parts[1], package):
                yield parts[1]


def unit_edges(package: Path = PACKAGE) -> set[tuple[str, str]]:
    """Every (importer, imported) pair of distinct top-level units."""
    edges = set()
    for path in sorted(package.rglob("*.py")):
        source = unit_of(path, package)
        edges |= {(source, target) for target in imported_units(path, package) if target != source}
    return edges


def test_every_unit_is_in_exactly_one_layer() -> None:
    units = {unit_of(path) for path in PACKAGE.rglob("*.py")}
    for unit in units:
        layer_of(unit)
    listed = {unit for layer in LAYERS for unit in layer}
    assert not listed - units, f"LAYERS lists units that do not exist: {sorted(listed - units)}"


def test_every_import_points_down_or_sideways() -> None:
    violations = [f"{source} (layer {layer_of(source)}) imports {target} (layer {layer_of(target)})"
                  for source, target in sorted(unit_edges()) if layer_of(target) > layer_of(source)]
    assert not violations, "\n".join(violations)


def test_no_two_top_level_units_import_each_other() -> None:
    edges = unit_edges()
    mutual = sorted({tuple(sorted(edge)) for edge in edges if (edge[1], edge[0]) in edges})
    assert not mutual, f"top-level units importing each other: {mutual}"


def test_type_only_and_relative_imports_count(tmp_path: Path) -> None:
    """A `TYPE_CHECKING` import and a relative one both name the unit they reach."""
    package = tmp_path / "agent_evolve"
    (package / "low").mkdir(parents=True)
    (package / "high").mkdir()
    (package / "low" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from agent_evolve.high.b import B\n")
    (package / "high" / "b.py").write_text("from ..low import a\n")
    (package / "top.py").write_text("from agent_evolve import low, Name\n")
    assert unit_edges(package) == {("low", "high"), ("high", "low"), ("top", "low")}


def test_the_layer_map_is_not_vacuous() -> None:
    assert layer_of("algorithms") > layer_of("agents") > layer_of("engine") > layer_of("benchmarks")
    assert layer_of("engine") > layer_of("llm") > layer_of("contract") > layer_of("types")
    assert ("algorithms", "agents") in unit_edges() and ("agents", "benchmarks") in unit_edges()
