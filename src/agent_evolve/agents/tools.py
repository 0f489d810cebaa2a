"""Workspace tools: `tools/registry.yaml` entries whose `tools/<file>` defines `run(arguments) -> str`, untrusted
code run confined (no network, limits, only variables allowed in `AGENT_EVOLVE_TOOL_ENV`); results redacted."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_evolve.contract.tool_entries import ToolEntry, tool_entries
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.environments import (Confinement, ConfinementError, ConfinementUnavailable, ExecResult, Limits,
                                      Mount, python_executable, run_confined)
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import ToolSpec
from agent_evolve.llm.errors import redact
from agent_evolve.llm.tool_loop import Tool

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_OUTPUT_CHARS = 4000
TOOL_ENV_ALLOW = "AGENT_EVOLVE_TOOL_ENV"  # comma-separated host variables a tool may receive when it declares them
TOOL_MEMORY_MB = 2048
TOOL_PROCESSES = 32
TOOL_FILE_SIZE_MB = 16
TOOL_SCRATCH_MB = 64
_KEEP_BYTES = 2**20
_BASE_ENV_PATH = "/usr/local/bin:/usr/bin:/bin"

_RUNNER = """\
import importlib.util, json, sys
path, arguments_file = sys.argv[1], sys.argv[2]
with open(arguments_file, encoding="utf-8") as handle:
    arguments = json.load(handle)
spec = importlib.util.spec_from_file_location("workspace_tool", path)
module = importlib.util.module_from_spec(spec)
real_stdout, sys.stdout = sys.stdout, sys.stderr
spec.loader.exec_module(module)
result = module.run(arguments)
sys.stdout = real_stdout
sys.stdout.write(result if isinstance(result, str) else json.dumps(result, default=str))
"""


class ToolRunError(AgentEvolveError):
    """A workspace tool failed, timed out, was refused or has no ``run`` function; the tool loop shows this."""


def load_tool_entries(workspace: AgentWorkspace) -> list[ToolEntry]:
    """The registry's entries, validated; a bad entry raises WorkspaceError naming the registry and the key."""
    return tool_entries(workspace.path, workspace.read_tool_registry(), workspace.path / "tools" / "registry.yaml")


def tool_environment(tool: str, declared: Sequence[str], environ: Mapping[str, str]) -> dict[str, str]:
    """The host variables passed to `tool`: those it declares, the user allows and `environ` has. A declared name
    not allowed fails the call, so an evolved tool cannot obtain a variable by declaring it."""
    allowed = {name.strip() for name in environ.get(TOOL_ENV_ALLOW, "").split(",") if name.strip()}
    refused = [name for name in declared if name not in allowed]
    if refused:
        raise ToolRunError(f"{tool} declares environment variable(s) {', '.join(refused)} that the user has not "
                           f"allowed (the user lists the names tools may receive in {TOOL_ENV_ALLOW})")
    return {name: environ[name] for name in declared if name in environ}


def _truncate(text: str, limit: int, unseen_bytes: int = 0) -> str:
    """At most ``limit`` characters plus a note of how much was cut, so one tool cannot flood the context."""
    if len(text) <= limit and not unseen_bytes:
        return text
    cut = f"{len(text) - limit} more characters" if len(text) > limit else ""
    unseen = f"{unseen_bytes} more bytes" if unseen_bytes else ""
    return text[:limit] + f"\n[... {' and '.join(p for p in (cut, unseen) if p)} cut]"


def _run_confined_tool(path: Path, arguments: dict[str, Any], tools_dir: Path, passed: dict[str, str],
                       limits: Limits) -> ExecResult:
    """Start the runner on `path` confined: the tools folder and the arguments read-only, a scratch working folder,
    the passed variables, no network; a refusal or a failed start becomes ToolRunError."""
    with tempfile.TemporaryDirectory(prefix="agent-tool-", ignore_cleanup_errors=True) as root:
        arguments_file, work = Path(root) / "arguments.json", Path(root) / "work"
        arguments_file.write_text(json.dumps(arguments, default=str), encoding="utf-8")
        work.mkdir()
        argv = [python_executable(), "-I", "-B", "-c", _RUNNER, os.path.realpath(path), str(arguments_file)]
        mounts = (Mount.bind(tools_dir), Mount.bind(arguments_file), Mount.scratch(work, TOOL_SCRATCH_MB))
        env = {**passed, "PATH": _BASE_ENV_PATH, "LANG": "C.UTF-8", "HOME": str(work), "TMPDIR": str(work)}
        try:
            return run_confined(argv, Confinement(mounts=mounts, cwd=str(work), env=env, network=False), limits)
        except ConfinementUnavailable as exc:
            raise ToolRunError(f"{path.name} was not run: {exc}") from None
        except ConfinementError as exc:
            raise ToolRunError(f"{path.name} could not be started: {exc}") from None


def run_tool_file(path: Path, arguments: dict[str, Any], *, timeout_s: float = DEFAULT_TIMEOUT_S,
                  max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS, env_names: Sequence[str] = (),
                  tools_dir: Path | None = None) -> str:
    """Run ``run(arguments)`` of the tool file confined (`tools_dir`, default its folder, read-only): its result
    text, redacted and truncated; ToolRunError says why a call failed (`.sh` tools run only in task environments)."""
    if path.suffix != ".py":
        raise ToolRunError(f"{path.name} is a script that runs only inside a task environment")
    passed = tool_environment(path.name, env_names, os.environ)
    keep = max(_KEEP_BYTES, 8 * max_output_chars)
    limits = Limits(timeout_s=timeout_s, memory_mb=TOOL_MEMORY_MB, processes=TOOL_PROCESSES,
                    file_size_mb=TOOL_FILE_SIZE_MB, output_bytes=keep, max_output_bytes=max(16 * 2**20, 2 * keep))
    ran = _run_confined_tool(path, arguments, Path(tools_dir or path.parent), passed, limits)
    if ran.timed_out:
        raise ToolRunError(f"{path.name} did not finish within {timeout_s:g}s and was stopped")
    if ran.output_overflow:
        raise ToolRunError(f"{path.name} wrote more than {limits.max_output_bytes} bytes of output and was stopped")
    if ran.exit_code != 0:
        err = redact(ran.stderr.decode("utf-8", errors="replace"))
        tail = "\n".join(err.strip().splitlines()[-3:]) or f"exit code {ran.exit_code}"
        raise ToolRunError(f"{path.name} failed: {_truncate(tail, 500)}")
    out = redact(ran.stdout.decode("utf-8", errors="replace"))
    return _truncate(out, max_output_chars, ran.stdout_size - len(ran.stdout))


def workspace_tools(workspace: AgentWorkspace, *, timeout_s: float = DEFAULT_TIMEOUT_S,
                    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS) -> list[Tool]:
    """The registry's tools as :class:`Tool` objects for :func:`run_tool_loop`."""
    tools_dir = Path(workspace.path) / "tools"

    def runner(entry: ToolEntry) -> Tool:
        def call(arguments: dict[str, Any]) -> str:
            return run_tool_file(entry.path, arguments, timeout_s=timeout_s, max_output_chars=max_output_chars,
                                 env_names=entry.env, tools_dir=tools_dir)

        return Tool(ToolSpec(entry.name, entry.description, entry.parameters), call)

    return [runner(entry) for entry in load_tool_entries(workspace)]
