"""Measure an agent on the holdout: task id -> scores of k repeats; nothing the agent buffered is kept."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.curtailment import PrefixWatch, StopRule, StopScoring
from agent_evolve.engine.executors.base import Executor
from agent_evolve.engine.solving import is_infrastructure_failure, model_usage, solve_all
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

GATE_WARN_SECONDS = 900.0
"""A gate evaluation expected to take longer than this (at the batch's measured speed) is announced first."""


@dataclass
class HoldoutMeasure:
    """Per-task scores (infrastructure failures left out) and how many attempts failed for infrastructure.

    `unscored` lists the tasks a stop rule left out of the table; `discarded` counts attempts that finished in
    flight after it stopped (solved, but not in the table).
    """

    scores: dict[str, list[float]] = field(default_factory=dict)
    attempts: int = 0
    infrastructure_failures: int = 0
    first_error: str = ""
    unscored: list[str] = field(default_factory=list)
    discarded: int = 0
    calls: int = 0
    tokens: int = 0

    @property
    def mean(self) -> float:
        """Mean over tasks of each task's mean over repeats."""
        means = [sum(s) / len(s) for s in self.scores.values() if s]
        return sum(means) / len(means) if means else 0.0

    def cost_per_task(self) -> dict[str, float]:
        """Model calls and tokens per solve of the tabled attempts (what this version costs to run)."""
        n = max(1, self.attempts)
        return {"calls": self.calls / n, "tokens": self.tokens / n}

    def to_dict(self) -> dict:
        data = {
            "scores": self.scores,
            "attempts": self.attempts,
            "infrastructure_failures": self.infrastructure_failures,
            "first_error": self.first_error,
            "calls": self.calls,
            "tokens": self.tokens,
        }
        if self.unscored:
            data.update(unscored=self.unscored, discarded=self.discarded)
        return data


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

    With `stop`, it is asked about each longer prefix of `tasks` whose repeats have all returned; once it says
    stop, no further task starts and only that prefix is tabled (the tasks after it are `unscored`; those that
    finished in flight count in `discarded`), so the table is the same whatever order the tasks finish in.
    """
    attempts = [t for t in tasks for _ in range(repeats)]
    returned: list[Observation] = []
    lock = threading.Lock()
    watch = PrefixWatch([t.id for t in tasks], repeats, stop) if stop is not None else None

    def done(o: Observation) -> None:
        with lock:
            returned.append(o)
            count = len(returned)
        if on_progress:
            on_progress(count)
        if watch is not None and watch.add(o.task.id, None if is_infrastructure_failure(o) else o.feedback.score):
            raise StopScoring

    try:
        observations = solve_all(agent, benchmark, attempts, concurrency, done, executor)
    except StopScoring:
        kept = watch.kept() if watch is not None else {t.id for t in tasks}
        order = {t.id: i for i, t in enumerate(tasks)}
        with lock:
            observations = sorted((o for o in returned if o.task.id in kept), key=lambda o: order[o.task.id])
            discarded = len(returned) - len(observations)
        result = _tabled(observations, tasks, repeats)
        result.discarded = discarded
        return result
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
        usage = model_usage(o.trajectory)
        result.calls += usage.calls
        result.tokens += usage.total_tokens
        if is_infrastructure_failure(o):
            result.infrastructure_failures += 1
            result.first_error = result.first_error or o.feedback.detail
        else:
            result.scores[o.task.id].append(o.feedback.score)
    result.unscored = [task_id for task_id, n in returned.items() if n < repeats]
    result.scores = {task_id: s for task_id, s in result.scores.items() if s and returned[task_id] >= repeats}
    return result


def expected_seconds(observations: list[Observation], attempts: int, concurrency: int) -> float:
    """How long `attempts` solves take at the speed the batch's observations measured."""
    seconds = [float(o.feedback.raw.get("seconds", 0.0)) for o in observations]
    per_task = sum(seconds) / len(seconds) if seconds else 0.0
    return per_task * attempts / max(1, concurrency)
