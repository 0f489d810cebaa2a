"""Imports flow one way: types -> contract -> llm -> protocols -> engine -> built-ins -> api and cli."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "agent_evolve"

LAYERS: list[tuple[str, ...]] = [
    ("agent_evolve.types", "agent_evolve.errors", "agent_evolve.config", "agent_evolve.io"),
    ("agent_evolve.contract", "agent_evolve.environments", "agent_evolve.text", "agent_evolve.stats",
     "agent_evolve.task_order"),
    ("agent_evolve.llm", "agent_evolve.testing", "agent_evolve.mcp"),
    ("agent_evolve.protocol", "agent_evolve.benchmarks.base",
     "agent_evolve.benchmarks.answer_kinds"),
    ("agent_evolve.engine",),
    ("agent_evolve.agents", "agent_evolve.benchmarks", "agent_evolve.algorithms", "agent_evolve.seed_workspaces"),
    ("agent_evolve.registry", "agent_evolve.api", "agent_evolve.cli", "agent_evolve.experiment", "agent_evolve",
     "agent_evolve.userview", "agent_evolve.report", "agent_evolve.export", "agent_evolve.tracking", "agent_evolve.lift"),
]


def layer_of(module: str) -> int:
    """The layer of the longest matching prefix."""
    best, best_len = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    assert best >= 0, f"{module} is in no layer; add it to LAYERS"
    return best


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return [n for n in names if n == "agent_evolve" or n.startswith("agent_evolve.")]


def test_every_import_points_down_or_sideways() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = module_name(path)
        for target in imported(ast.parse(path.read_text(encoding="utf-8"))):
            if layer_of(target) > layer_of(source):
                violations.append(f"{source} (layer {layer_of(source)}) imports {target} (layer {layer_of(target)})")
    assert not violations, "\n".join(violations)


def test_the_layer_map_is_not_vacuous() -> None:
    assert layer_of("agent_evolve.engine.loop") > layer_of("agent_evolve.llm.usage") > layer_of("agent_evolve.types")
    assert layer_of("agent_evolve.benchmarks.base") < layer_of("agent_evolve.benchmarks.gsm8k")
