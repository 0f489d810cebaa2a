"""The kernel reads top-down: no import circle among engine modules, none over 400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "src" / "agent_evolve" / "engine"


def engine_imports(path: Path) -> set[str]:
    """Engine modules `path` imports, those for type checking included (a circle there is a circle to read)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("agent_evolve.engine."):
                found.add(node.module.split(".")[2])
            elif node.module == "agent_evolve.engine":
                found.update(alias.name for alias in node.names)
    return found


def test_engine_modules_import_each_other_without_a_circle() -> None:
    graph = {p.stem: engine_imports(p) for p in ENGINE.rglob("*.py") if p.parent == ENGINE}
    assert graph["loop"] and graph["session"], "the graph is not vacuous"
    assert "loop" not in graph["session"]
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        if state.get(module) == "done":
            return
        assert state.get(module) != "open", f"import circle: {' -> '.join([*path, module])}"
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            visit(target, [*path, module])
        state[module] = "done"

    for module in sorted(graph):
        visit(module, [])


def test_no_engine_module_is_over_400_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in ENGINE.rglob("*.py")}
    assert sizes and max(sizes.values()) <= 400, sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
