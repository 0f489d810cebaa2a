"""Confinement for untrusted commands: fresh PID, mount and network namespaces, an allow-listed view, limits
on the whole process tree (cgroups) and a quota on what it writes. See docs/security.md.

Graders and the engine's shell use it; the task environments of agentic benchmarks (`task_env`) build on it.
"""

from __future__ import annotations

from agent_evolve.environments.bounds import ALLOW_UNBOUNDED_ENV, TreeBounds
from agent_evolve.environments.confined import run_confined, start_confined
from agent_evolve.environments.detect import ALLOW_UNCONFINED_ENV, backend_for_untrusted_code, confining_backend
from agent_evolve.environments.errors import ConfinementError, ConfinementUnavailable
from agent_evolve.environments.process import ConfinedProcess, ExecResult, collect_all
from agent_evolve.environments.spec import Confinement, Limits, Mount, python_executable
from agent_evolve.environments.task_env import (
    CommandResult,
    EnvironmentPathError,
    EnvironmentSpec,
    TaskEnvironment,
    open_environment,
)

__all__ = [
    "ALLOW_UNBOUNDED_ENV",
    "ALLOW_UNCONFINED_ENV",
    "CommandResult",
    "EnvironmentPathError",
    "EnvironmentSpec",
    "TaskEnvironment",
    "open_environment",
    "ConfinedProcess",
    "Confinement",
    "ConfinementError",
    "ConfinementUnavailable",
    "ExecResult",
    "Limits",
    "Mount",
    "backend_for_untrusted_code",
    "collect_all",
    "confining_backend",
    "python_executable",
    "run_confined",
    "start_confined",
    "TreeBounds",
]
