"""Solve and grade tasks concurrently, keeping results in task order; errors become failed observations."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.errors import BudgetExceededError
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Feedback, Observation, Task, Trajectory

log = logging.getLogger(__name__)


def attempt(agent: BaseAgent, benchmark: BenchmarkAdapter, task: Task) -> Observation:
    """Solve one task and grade it. An agent or grader exception is a recorded failure, never swallowed."""
    started = time.monotonic()
    try:
        trajectory = agent.solve(task)
    except BudgetExceededError:
        raise
    except Exception as exc:  # noqa: BLE001 - a crashing agent is evidence, recorded as a failure
        log.warning("agent failed on task %s: %s: %s", task.id, type(exc).__name__, exc)
        error = f"{type(exc).__name__}: {exc}"
        trajectory = Trajectory(task_id=task.id, output="", steps=[{"error": error}])
        feedback = Feedback(False, 0.0, detail=f"agent error: {error}", raw={"error": error})
        return Observation(task, trajectory, _timed(feedback, started))
    try:
        feedback = benchmark.evaluate(task, trajectory)
    except BudgetExceededError:
        raise
    except Exception as exc:  # noqa: BLE001 - a grader crash is reported on the observation
        log.warning("grader failed on task %s: %s: %s", task.id, type(exc).__name__, exc)
        error = f"{type(exc).__name__}: {exc}"
        feedback = Feedback(False, 0.0, detail=f"grader error: {error}", raw={"grader_error": error})
    return Observation(task, trajectory, _timed(feedback, started))


def _timed(feedback: Feedback, started: float) -> Feedback:
    feedback.raw.setdefault("seconds", round(time.monotonic() - started, 3))
    return feedback


def solve_all(
    agent: BaseAgent,
    benchmark: BenchmarkAdapter,
    tasks: list[Task],
    concurrency: int,
    on_done: Callable[[Observation], None] | None = None,
) -> list[Observation]:
    """Attempt every task with up to `concurrency` at once; results come back in task order."""

    def run(task: Task) -> Observation:
        observation = attempt(agent, benchmark, task)
        if on_done is not None:
            on_done(observation)
        return observation

    if concurrency <= 1 or len(tasks) <= 1:
        return [run(task) for task in tasks]
    with ThreadPoolExecutor(max_workers=min(concurrency, len(tasks))) as pool:
        return list(pool.map(run, tasks))


def mean_score(observations: list[Observation]) -> float:
    return sum(o.feedback.score for o in observations) / len(observations) if observations else 0.0
