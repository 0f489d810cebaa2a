"""The rollout executor protocol: solve and grade tasks somewhere, give the observations back to the driver in order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Feedback, Observation, Task, Trajectory

Attempt = Callable[[BaseAgent, BenchmarkAdapter, Task], Observation]  # the work per task: solve, then grade
OnDone = Callable[[Observation], None]
AgentFactory = Callable[[Path], BaseAgent]


class Executor(Protocol):
    """Runs `work` on every task, calling `on_done` as each finishes; the observations come back in task order,
    remote buffers in `agent`'s; an exception from `work` or `on_done` propagates and no further task starts."""

    def run(self, work: Attempt, agent: BaseAgent, benchmark: BenchmarkAdapter, tasks: list[Task],
            on_done: OnDone | None = None) -> list[Observation]: ...


def lost_task(task: Task, error: str) -> Observation:
    """A task whose worker was lost on both tries: an infrastructure failure, not the agent's wrong answer."""
    message = f"worker lost twice: {error}"
    feedback = Feedback(False, 0.0, detail=f"executor error: {message}", raw={"infra_error": message})
    return Observation(task, Trajectory(task_id=task.id, output="", steps=[{"error": message}]), feedback)
