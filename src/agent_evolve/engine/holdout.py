"""Measure an agent on the holdout: task id -> scores of k repeats; nothing the agent buffered is kept."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import Executor
from agent_evolve.engine.solving import is_infrastructure_failure, solve_all
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

GATE_WARN_SECONDS = 900.0
"""A gate evaluation expected to take longer than this (at the batch's measured speed) is announced first."""

StopRule = Callable[[dict[str, list[float]], list[str]], bool]
"""Given the tasks scored so far (task id -> repeat scores) and those still unscored: stop scoring now?"""


class StopScoring(Exception):  # noqa: N818 - a signal, not an error
    """Raised from a solve's `on_done`: the executor starts no further task (see `Executor`)."""


@dataclass
class HoldoutMeasure:
    """Per-task scores (infrastructure failures left out) and how many attempts failed for infrastructure.

    `unscored` lists the tasks a stop rule left without all their repeats; they have no scores here.
    """

    scores: dict[str, list[float]] = field(default_factory=dict)
    attempts: int = 0
    infrastructure_failures: int = 0
    first_error: str = ""
    unscored: list[str] = field(default_factory=list)

    @property
    def mean(self) -> float:
        """Mean over tasks of each task's mean over repeats."""
        means = [sum(s) / len(s) for s in self.scores.values() if s]
        return sum(means) / len(means) if means else 0.0

    def to_dict(self) -> dict:
        data = {
            "scores": self.scores,
            "attempts": self.attempts,
            "infrastructure_failures": self.infrastructure_failures,
            "first_error": self.first_error,
        }
        return {**data, "unscored": self.unscored} if self.unscored else data

    def merged(self, more: HoldoutMeasure) -> HoldoutMeasure:
        """This measure and `more` (of other tasks) as one."""
        return HoldoutMeasure({**self.scores, **more.scores}, self.attempts + more.attempts,
                              self.infrastructure_failures + more.infrastructure_failures,
                              self.first_error or more.first_error, list(more.unscored))


def measure(
    agent: BaseAgent,
    benchmark: BenchmarkAdapter,
    tasks: list[Task],
    *,
    repeats: int,
    concurrency: int,
    on_progress: Callable[[int], None] | None = None,
    executor: Executor | None = None,
    stop: StopRule | None = None,
) -> HoldoutMeasure:
    """Solve each task `repeats` times; memories and drafts the agent buffered meanwhile are discarded.

    With `stop`, it is asked each time a task has all its repeats; once it says stop, no further task starts
    (those in flight may finish) and the tasks without all their repeats are `unscored`.
    """
    attempts = [t for t in tasks for _ in range(repeats)]
    returned: list[Observation] = []
    lock = threading.Lock()

    def done(o: Observation) -> None:
        with lock:
            returned.append(o)
            count = len(returned)
            stopping = stop is not None and _stop_now(stop, tasks, repeats, returned, o.task.id)
        if on_progress:
            on_progress(count)
        if stopping:
            raise StopScoring

    try:
        observations = solve_all(agent, benchmark, attempts, concurrency, done, executor)
    except StopScoring:
        order = {t.id: i for i, t in enumerate(tasks)}
        observations = sorted(returned, key=lambda o: order[o.task.id])
    finally:
        agent.discard_buffers()
    return _tabled(observations, tasks, repeats)


def _tabled(observations: list[Observation], tasks: list[Task], repeats: int) -> HoldoutMeasure:
    """The measure of the returned attempts; a task without all its repeats is unscored, its scores dropped."""
    result = HoldoutMeasure(scores={t.id: [] for t in tasks})
    returned = {t.id: 0 for t in tasks}
    for o in observations:
        result.attempts += 1
        returned[o.task.id] += 1
        if is_infrastructure_failure(o):
            result.infrastructure_failures += 1
            result.first_error = result.first_error or o.feedback.detail
        else:
            result.scores[o.task.id].append(o.feedback.score)
    result.unscored = [task_id for task_id, n in returned.items() if n < repeats]
    result.scores = {task_id: s for task_id, s in result.scores.items() if s and returned[task_id] >= repeats}
    return result


def _stop_now(stop: StopRule, tasks: list[Task], repeats: int, returned: list[Observation], task_id: str) -> bool:
    """Ask `stop` when `task_id` has just got its last repeat (infrastructure failures leave a task unscored)."""
    if sum(1 for o in returned if o.task.id == task_id) < repeats:
        return False
    table = _tabled(returned, tasks, repeats)
    return stop(table.scores, table.unscored)


def expected_seconds(observations: list[Observation], attempts: int, concurrency: int) -> float:
    """How long `attempts` solves take at the speed the batch's observations measured."""
    seconds = [float(o.feedback.raw.get("seconds", 0.0)) for o in observations]
    per_task = sum(seconds) / len(seconds) if seconds else 0.0
    return per_task * attempts / max(1, concurrency)
