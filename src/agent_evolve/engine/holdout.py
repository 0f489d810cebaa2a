"""Measure an agent on the holdout: task id -> scores of k repeats; nothing the agent buffered is kept."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import Executor
from agent_evolve.engine.solving import is_infrastructure_failure, solve_all
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

GATE_WARN_SECONDS = 900.0
"""A gate evaluation expected to take longer than this (at the batch's measured speed) is announced first."""


@dataclass
class HoldoutMeasure:
    """Per-task scores (infrastructure failures left out) and how many attempts failed for infrastructure."""

    scores: dict[str, list[float]] = field(default_factory=dict)
    attempts: int = 0
    infrastructure_failures: int = 0
    first_error: str = ""

    @property
    def mean(self) -> float:
        """Mean over tasks of each task's mean over repeats."""
        means = [sum(s) / len(s) for s in self.scores.values() if s]
        return sum(means) / len(means) if means else 0.0

    def to_dict(self) -> dict:
        return {
            "scores": self.scores,
            "attempts": self.attempts,
            "infrastructure_failures": self.infrastructure_failures,
            "first_error": self.first_error,
        }


def measure(
    agent: BaseAgent,
    benchmark: BenchmarkAdapter,
    tasks: list[Task],
    *,
    repeats: int,
    concurrency: int,
    on_progress: Callable[[int], None] | None = None,
    executor: Executor | None = None,
) -> HoldoutMeasure:
    """Solve each task `repeats` times; memories and drafts the agent buffered meanwhile are discarded."""
    count = [0]

    def done(_: Observation) -> None:
        count[0] += 1
        if on_progress:
            on_progress(count[0])

    result = HoldoutMeasure(scores={t.id: [] for t in tasks})
    try:
        observations = solve_all(agent, benchmark, [t for t in tasks for _ in range(repeats)], concurrency, done, executor)
    finally:
        agent.discard_buffers()
    for o in observations:
        result.attempts += 1
        if is_infrastructure_failure(o):
            result.infrastructure_failures += 1
            result.first_error = result.first_error or o.feedback.detail
        else:
            result.scores[o.task.id].append(o.feedback.score)
    result.scores = {task_id: s for task_id, s in result.scores.items() if s}
    return result


def expected_seconds(observations: list[Observation], attempts: int, concurrency: int) -> float:
    """How long `attempts` solves take at the speed the batch's observations measured."""
    seconds = [float(o.feedback.raw.get("seconds", 0.0)) for o in observations]
    per_task = sum(seconds) / len(seconds) if seconds else 0.0
    return per_task * attempts / max(1, concurrency)
