"""Workspace tools: ``tools/registry.yaml`` entries run as Python files in a child process.

An entry is ``{name, description, parameters (a JSON Schema object), file}``; ``tools/<file>`` defines
``run(arguments: dict) -> str``. Each call starts ``python -c <runner>`` with the arguments as JSON on stdin,
in a fresh temporary directory, under a time limit, with its output truncated, so a tool that hangs, crashes
or prints megabytes cannot take the agent down. What the tool prints goes to stderr, not into its result.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import safe_join
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import AgentEvolveError, WorkspaceError
from agent_evolve.llm.base import ToolSpec
from agent_evolve.llm.tool_loop import Tool

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_OUTPUT_CHARS = 4000
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ENTRY_KEYS = frozenset({"name", "description", "parameters", "file"})

_RUNNER = """\
import importlib.util, json, sys
path = sys.argv[1]
arguments = json.loads(sys.stdin.read())
spec = importlib.util.spec_from_file_location("workspace_tool", path)
module = importlib.util.module_from_spec(spec)
real_stdout, sys.stdout = sys.stdout, sys.stderr
spec.loader.exec_module(module)
result = module.run(arguments)
sys.stdout = real_stdout
sys.stdout.write(result if isinstance(result, str) else json.dumps(result, default=str))
"""


class ToolRunError(AgentEvolveError):
    """A workspace tool failed, timed out or has no ``run`` function; the tool loop shows this to the model."""


@dataclass(frozen=True)
class ToolEntry:
    """One validated registry entry; ``path`` is the absolute tool file inside the workspace."""

    name: str
    description: str
    path: Path
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})


def load_tool_entries(workspace: AgentWorkspace) -> list[ToolEntry]:
    """The registry's entries, validated; a bad entry raises WorkspaceError naming the registry and the key."""
    registry = workspace.path / "tools" / "registry.yaml"
    entries: list[ToolEntry] = []
    for number, raw in enumerate(workspace.read_tool_registry(), start=1):
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
        if not isinstance(file, str) or not file.endswith(".py"):
            raise WorkspaceError(f"{where}: key 'file' must name a Python file under tools/, got {file!r}")
        try:
            path = safe_join(workspace.path / "tools", file)
        except WorkspaceError as exc:
            raise WorkspaceError(f"{where}: key 'file': {exc}") from None
        if not path.is_file():
            raise WorkspaceError(f"{where}: key 'file': {path} does not exist")
        entries.append(ToolEntry(name, description, path, parameters))
    return entries


def _truncate(text: str, limit: int) -> str:
    """At most ``limit`` characters plus a note of how many were cut, so one tool cannot flood the context."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut]"


def run_tool_file(
    path: Path,
    arguments: dict[str, Any],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> str:
    """Run ``run(arguments)`` of the tool file in a child process; its result text, truncated.

    Raises :class:`ToolRunError` on a timeout (the whole process group is killed) or a failure (the last
    lines of the tool's error output are in the message).
    """
    with tempfile.TemporaryDirectory(prefix="agent-tool-") as scratch:
        process = subprocess.Popen(
            [sys.executable, "-c", _RUNNER, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=scratch,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = process.communicate(json.dumps(arguments), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.communicate()
            raise ToolRunError(f"{path.name} did not finish within {timeout_s:g}s and was stopped") from None
    if process.returncode != 0:
        tail = "\n".join(err.strip().splitlines()[-3:]) or f"exit code {process.returncode}"
        raise ToolRunError(f"{path.name} failed: {_truncate(tail, 500)}")
    return _truncate(out, max_output_chars)


def _kill_group(process: subprocess.Popen[str]) -> None:
    """Kill the tool and every process it started (it leads its own session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def workspace_tools(
    workspace: AgentWorkspace,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
) -> list[Tool]:
    """The registry's tools as :class:`Tool` objects for :func:`run_tool_loop`."""

    def runner(entry: ToolEntry) -> Tool:
        def call(arguments: dict[str, Any]) -> str:
            return run_tool_file(entry.path, arguments, timeout_s=timeout_s, max_output_chars=max_output_chars)

        return Tool(ToolSpec(entry.name, entry.description, entry.parameters), call)

    return [runner(entry) for entry in load_tool_entries(workspace)]
