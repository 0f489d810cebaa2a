"""Workspace tools: ``tools/registry.yaml`` entries run as Python files in a child process.

An entry is ``{name, description, parameters (a JSON Schema object), file}``; ``tools/<file>`` defines
``run(arguments: dict) -> str``. Each call starts ``python -c <runner>`` with the arguments as JSON on stdin,
in a fresh temporary directory, under a time limit, with its output truncated, so a tool that hangs, crashes
or prints megabytes cannot take the agent down. What the tool prints goes to stderr, not into its result.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent_evolve.contract.tool_entries import ToolEntry, tool_entries
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import ToolSpec
from agent_evolve.llm.tool_loop import Tool

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_OUTPUT_CHARS = 4000

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


def load_tool_entries(workspace: AgentWorkspace) -> list[ToolEntry]:
    """The registry's entries, validated; a bad entry raises WorkspaceError naming the registry and the key."""
    return tool_entries(workspace.path, workspace.read_tool_registry(), workspace.path / "tools" / "registry.yaml")


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
    lines of the tool's error output are in the message), and for a `.sh` tool, which runs only in a task
    environment.
    """
    if path.suffix != ".py":
        raise ToolRunError(f"{path.name} is a script that runs only inside a task environment")
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
