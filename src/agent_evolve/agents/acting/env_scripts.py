"""Workspace tools (`tools/registry.yaml`) run in the task environment through its `exec`, their source in the command
line so nothing is written into the work tree: a `.py` tool's `run(arguments)`, a `.sh` tool with `$TOOL_ARGS` and
`$ARG_<name>` per scalar argument. Output passes the redaction of LLM errors.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from agent_evolve.agents.acting.env_tools import clip
from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.contract.tool_entries import ToolEntry
from agent_evolve.environments.task_env import TaskEnvironment
from agent_evolve.llm.base import ToolSpec
from agent_evolve.llm.errors import redact
from agent_evolve.llm.tool_loop import Tool

_PY_RUNNER = (
    "import json, sys\n"
    "namespace = {'__name__': 'workspace_tool'}\n"
    "real_stdout, sys.stdout = sys.stdout, sys.stderr\n"
    "exec(compile(sys.argv[1], 'tool', 'exec'), namespace)\n"
    "result = namespace['run'](json.loads(sys.argv[2]))\n"
    "sys.stdout = real_stdout\n"
    "print(result if isinstance(result, str) else json.dumps(result, default=str))\n"
)
_SCALAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def tool_command(entry: ToolEntry, arguments: dict[str, Any]) -> str:
    """The shell command that runs `entry` with `arguments` in the environment."""
    source = read_regular_text(entry.path)
    payload = json.dumps(arguments, default=str)
    if not entry.is_script:
        return f"python3 -c {shlex.quote(_PY_RUNNER)} {shlex.quote(source)} {shlex.quote(payload)}"
    scalars = {f"ARG_{key}": value for key, value in arguments.items()
               if _SCALAR_NAME.match(key) and isinstance(value, (str, int, float, bool))}
    assignments = " ".join(f"{name}={shlex.quote(str(value))}" for name, value in scalars.items())
    return f"TOOL_ARGS={shlex.quote(payload)} {assignments} bash -c {shlex.quote(source)} {shlex.quote(entry.name)}"


def environment_scripts(entries: list[ToolEntry], environment: TaskEnvironment, *, timeout_s: float,
                        max_observation_chars: int) -> list[Tool]:
    """The registry's tools as Tools that run in `environment`; the model sees the output and the exit code."""

    def runner(entry: ToolEntry) -> Tool:
        def call(arguments: dict[str, Any]) -> str:
            result = environment.exec(tool_command(entry, arguments), timeout_s=timeout_s)
            return clip(redact(result.render()), max_observation_chars)

        return Tool(ToolSpec(entry.name, entry.description, entry.parameters), call)

    return [runner(entry) for entry in entries]
