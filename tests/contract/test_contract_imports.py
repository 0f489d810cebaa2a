"""The contract layer depends only on types, errors, io (the safe YAML/JSON readers), config, the standard library
and PyYAML; protocol adds contract and the task environment protocol (environments, beside contract in the layer
map)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "agent_evolve"
ALLOWED = {
    "contract": ("agent_evolve.types", "agent_evolve.errors", "agent_evolve.io", "agent_evolve.config",
                 "agent_evolve.contract"),
    "protocol": ("agent_evolve.types", "agent_evolve.errors", "agent_evolve.contract", "agent_evolve.environments",
                 "agent_evolve.protocol"),
}
THIRD_PARTY = {"yaml"}


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            names.append("<relative>")
    return names


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports(layer: str) -> None:
    stdlib = sys.stdlib_module_names
    for path in sorted((PACKAGE / layer).glob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            if top == "agent_evolve":
                assert name == "agent_evolve" or name.startswith(ALLOWED[layer]), f"{path.name} imports {name}"
            else:
                assert name != "<relative>", f"{path.name} uses a relative import"
                assert top in stdlib or top in THIRD_PARTY, f"{path.name} imports {name}"
