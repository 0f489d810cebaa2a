"""Confinement for untrusted commands (namespaces, an allow-listed view, whole-tree limits, a write quota; see
docs/security.md), and the task environments of agentic benchmarks built on it (`task_env`)."""

from __future__ import annotations

from agent_evolve.environments.cgroup import ALLOW_UNBOUNDED_ENV, TreeBounds
from agent_evolve.environments.detect import (ALLOW_UNCONFINED_ENV, backend_for_untrusted_code, confining_backend,
                                              run_confined, start_confined)
from agent_evolve.environments.errors import ConfinementError, ConfinementUnavailable
from agent_evolve.environments.process import ConfinedProcess, ExecResult, collect_all
from agent_evolve.environments.spec import Confinement, Limits, Mount, python_executable
from agent_evolve.environments.task_env import (CommandResult, EnvironmentPathError, EnvironmentSpec, TaskEnvironment,
                                                open_environment)

__all__ = [
    "ALLOW_UNBOUNDED_ENV", "ALLOW_UNCONFINED_ENV", "CommandResult", "ConfinedProcess", "Confinement",
    "ConfinementError", "ConfinementUnavailable", "EnvironmentPathError", "EnvironmentSpec", "ExecResult", "Limits",
    "Mount", "TaskEnvironment", "TreeBounds", "backend_for_untrusted_code", "collect_all", "confining_backend",
    "open_environment", "python_executable", "run_confined", "start_confined",
]
