"""The tools layer (docs/benchmarks.md): `tools/registry.yaml` entries `{name, description, parameters, file, env}`,
each naming a `.py` or `.sh` script under `tools/`, validated; `env` lists the variables the tool asks for."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import safe_join
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.errors import WorkspaceError

TOOL_SUFFIXES: tuple[str, ...] = (".py", ".sh")  # a Python module with `run(arguments)`, or a bash script
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_ENTRY_KEYS = frozenset({"name", "description", "parameters", "file", "env"})


@dataclass(frozen=True)
class ToolEntry:
    """One validated registry entry; `path` is the absolute tool file inside the workspace."""

    name: str
    description: str
    path: Path
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    env: tuple[str, ...] = ()

    @property
    def is_script(self) -> bool:
        """A bash script rather than a Python module."""
        return self.path.suffix == ".sh"


def tool_entries(root: Path, raw_entries: Sequence[dict[str, Any]], registry: Path) -> list[ToolEntry]:
    """The entries of `registry` (read from workspace `root`) validated; WorkspaceError naming the entry or file."""
    entries: list[ToolEntry] = []
    for number, raw in enumerate(raw_entries, start=1):
        where = f"{registry}: entry {number}"
        unknown = sorted(str(key) for key in set(raw) - _ENTRY_KEYS)
        if unknown:
            raise WorkspaceError(f"{where}: unknown key(s) {unknown}; known: {sorted(_ENTRY_KEYS)}")
        name, description, file = raw.get("name"), raw.get("description", ""), raw.get("file")
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise WorkspaceError(f"{where}: key 'name' must be 1-64 letters, digits, '_' or '-', got {name!r}")
        if name in {e.name for e in entries}:
            raise WorkspaceError(f"{where}: key 'name' repeats the tool name {name!r}")
        if not isinstance(description, str):
            raise WorkspaceError(f"{where}: key 'description' must be a string")
        parameters = raw.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
            raise WorkspaceError(f"{where}: key 'parameters' must be a JSON Schema object (type: object)")
        if not isinstance(file, str) or not file.endswith(TOOL_SUFFIXES):
            raise WorkspaceError(f"{where}: key 'file' must name a .py or .sh file under tools/, got {file!r}")
        try:
            path = safe_join(root / "tools", file)
        except WorkspaceError as exc:
            raise WorkspaceError(f"{where}: key 'file': {exc}") from None
        if not path.is_file():
            raise WorkspaceError(f"{where}: key 'file': {path} does not exist")
        check_tool_file(path)
        entries.append(ToolEntry(name, description, path, parameters, env_names(raw.get("env", []), where)))
    return entries


def env_names(raw: Any, where: str) -> tuple[str, ...]:
    """The entry's `env`: distinct variable names; WorkspaceError naming the entry otherwise."""
    if not isinstance(raw, list) or not all(isinstance(n, str) and _ENV_NAME.match(n) for n in raw):
        raise WorkspaceError(f"{where}: key 'env' must be a list of environment variable names, got {raw!r}")
    if len(set(raw)) != len(raw):
        raise WorkspaceError(f"{where}: key 'env' names a variable twice: {raw!r}")
    return tuple(raw)


def check_tool_file(path: Path) -> None:
    """A `.py` tool must parse and define `run`; a `.sh` tool must not be empty. WorkspaceError naming the file."""
    try:
        source = read_regular_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"{path}: cannot read the tool file: {exc}") from None
    if path.suffix == ".sh":
        if not source.strip():
            raise WorkspaceError(f"{path}: the tool script is empty")
        return
    try:
        module = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise WorkspaceError(f"{path}: line {exc.lineno}: the tool does not parse: {exc.msg}") from None
    if not any(isinstance(node, ast.FunctionDef) and node.name == "run" for node in module.body):
        raise WorkspaceError(f"{path}: the tool defines no top-level function run(arguments)")
