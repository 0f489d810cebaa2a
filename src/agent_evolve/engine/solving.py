"""Solve and grade tasks concurrently, keeping results in task order; errors become failed observations."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import Executor
from agent_evolve.engine.executors.threads import ThreadExecutor
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
    executor: Executor | None = None,
) -> list[Observation]:
    """Attempt every task on `executor` (default: `concurrency` threads here); results come back in task order."""
    runner = executor if executor is not None else ThreadExecutor(concurrency)
    return runner.run(attempt, agent, benchmark, tasks, on_done)


def mean_score(observations: list[Observation]) -> float:
    return sum(o.feedback.score for o in observations) / len(observations) if observations else 0.0
