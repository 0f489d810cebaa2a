"""The task environment of the attempt running in this thread, for agents that act (tools over a work tree).

The loop opens a benchmark's environment around one solve and its grading and binds it here; an agent reads it
with `current_environment()` (None for tasks that have no environment, such as GSM8K).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from agent_evolve.environments.task_env import TaskEnvironment

_CURRENT: ContextVar[TaskEnvironment | None] = ContextVar("agent_evolve_task_environment", default=None)


def current_environment() -> TaskEnvironment | None:
    """The environment bound to the attempt running in this thread or task, if any."""
    return _CURRENT.get()


@contextmanager
def bound_environment(environment: TaskEnvironment) -> Iterator[TaskEnvironment]:
    """Bind `environment` for the duration of the block (nested binds restore the outer one)."""
    token = _CURRENT.set(environment)
    try:
        yield environment
    finally:
        _CURRENT.reset(token)
