"""MCP server definitions in the `mcpServers` format (name -> command, args, env, cwd; stdio only), validated: the
manifest's `mcp_servers`, and a task's `metadata["mcp_servers"]`, which wins by name. `python` runs as this
interpreter with this PYTHONPATH, so a server shipped in a Python package starts where it was installed.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.contract.manifest import MANIFEST_FILE, read_manifest_data
from agent_evolve.errors import ConfigError, MissingDependencyError
from agent_evolve.types import Task

KEY = "mcp_servers"  # the manifest's key and a task's metadata key
PYTHON_COMMANDS = frozenset({"python", "python3"})
_SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
_ENTRY_KEYS = frozenset({"command", "args", "env", "cwd"})


@dataclass(frozen=True)
class McpServerConfig:
    """One stdio MCP server: how to start it and under which name its tools are exposed."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None

    def executable(self) -> str:
        """The program to start: this interpreter for `python`, else the command found on PATH or as a path
        (MissingDependencyError naming the server and the command when it cannot be found)."""
        if self.command in PYTHON_COMMANDS:
            return sys.executable
        found = shutil.which(self.command)
        if found is None:
            raise MissingDependencyError(
                f"MCP server {self.name!r}: command {self.command!r} not found (not on PATH and not an executable "
                "path); install it or fix the server's `command`")
        return found

    def launch_env(self) -> dict[str, str]:
        """Variables set for the server over the SDK's safe defaults: its `env`, and PYTHONPATH for `python`."""
        inherited = os.environ.get("PYTHONPATH")
        base = {"PYTHONPATH": inherited} if self.command in PYTHON_COMMANDS and inherited else {}
        return {**base, **self.env}


def parse_servers(data: Any, source: str) -> list[McpServerConfig]:
    """Servers from a mapping (with or without the `mcpServers` wrapper); ConfigError naming `source` and the key."""
    if data is None:
        return []
    if isinstance(data, Mapping) and "mcpServers" in data:
        data = data["mcpServers"]
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: MCP servers must map server names to {{command, args, env}}, got "
                          f"{type(data).__name__}")
    return [_parse_entry(str(name), entry, source) for name, entry in data.items()]


def _parse_entry(name: str, entry: Any, source: str) -> McpServerConfig:
    """One validated server entry."""
    where = f"{source}: MCP server {name!r}"
    if not _SERVER_NAME.match(name):
        raise ConfigError(f"{where}: a name is 1-32 letters, digits, '_' or '-'")
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: must be a mapping with a `command`, got {type(entry).__name__}")
    if "url" in entry and "command" not in entry:
        raise ConfigError(f"{where}: has a `url`; only stdio servers (a `command`) are supported")
    unknown = sorted(str(key) for key in set(entry) - _ENTRY_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown}; known: {sorted(_ENTRY_KEYS)}")
    command, args, env, cwd = entry.get("command"), entry.get("args", []), entry.get("env", {}), entry.get("cwd")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}: key 'command' must be a non-empty string, got {command!r}")
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise ConfigError(f"{where}: key 'args' must be a list of strings, got {args!r}")
    if not isinstance(env, Mapping) or not all(isinstance(v, (str, int, float)) for v in env.values()):
        raise ConfigError(f"{where}: key 'env' must map names to strings, got {env!r}")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigError(f"{where}: key 'cwd' must be a string, got {cwd!r}")
    return McpServerConfig(name, command, tuple(str(a) for a in args), {str(k): str(v) for k, v in env.items()}, cwd)


def workspace_servers(workspace_path: str | Path) -> list[McpServerConfig]:
    """The servers the workspace's manifest lists under `mcp_servers` (none when the key is absent)."""
    source = str(Path(workspace_path) / MANIFEST_FILE)
    return parse_servers(read_manifest_data(workspace_path).get(KEY), f"{source}: key '{KEY}'")


def task_servers(task: Task) -> list[McpServerConfig]:
    """The servers a task brings in `metadata["mcp_servers"]`."""
    return parse_servers(task.metadata.get(KEY), f"task {task.id}: metadata '{KEY}'")


def merge_servers(base: list[McpServerConfig], override: list[McpServerConfig]) -> list[McpServerConfig]:
    """`base` with `override`'s entries replacing those of the same name, then `override`'s new ones."""
    by_name = {server.name: server for server in base}
    by_name.update({server.name: server for server in override})
    return list(by_name.values())
