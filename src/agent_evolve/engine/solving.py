"""Solve and grade tasks concurrently in task order, measure an agent k times per task, reload it, report progress.
A fatal error stops the run; any other fault is a failed observation tagged with its error kind."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.contract.manifest import load_manifest
from agent_evolve.engine.curtailment import PrefixWatch, StopRule, StopScoring
from agent_evolve.engine.executors.base import Executor
from agent_evolve.engine.executors.threads import ThreadExecutor
from agent_evolve.environments.task_env import TaskEnvironment, open_environment
from agent_evolve.errors import BudgetExceededError, is_fatal
from agent_evolve.llm.errors import LLMError
from agent_evolve.protocol.acting import bound_environment
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Feedback, Observation, Task, Trajectory, Usage

log = logging.getLogger(__name__)

INFRASTRUCTURE = "infrastructure"  # error kind of a fault outside the answer: model call, timeout, OS, grader
AGENT_ERROR = "agent_error"  # error kind of a bug in the agent's own code
ERROR_KIND_KEY = "error_kind"  # the `Feedback.raw` key that carries an observation's error kind

ARM_PHASE = "arm"    # an experiment starts another arm; the event's message names it and its seed
TEST_PHASE = "test"  # an experiment scores a workspace on its test split, outside any cycle
BASELINE_SCORED = "baseline_scored"  # the baseline's holdout score is known (the event's score and total)


@dataclass
class ProgressEvent:
    """A phase change or a finished task, for live displays: the loop's phases and an experiment's own."""

    cycle: int
    phase: str
    done: int = 0
    total: int = 0
    score: float | None = None
    message: str = ""


Progress = Callable[[ProgressEvent], None]  # a live display: hears every ProgressEvent


def attempt(agent: BaseAgent, benchmark: BenchmarkAdapter, task: Task) -> Observation:
    """Solve one task and grade it; a fatal or budget error propagates, any other is a recorded failure."""
    started = time.monotonic()
    spec = benchmark.environment(task)
    if spec is None:
        return _attempt(agent, benchmark, task, None, started)
    try:
        environment = open_environment(spec)
    except Exception as exc:  # noqa: BLE001 - an environment that cannot start is an infrastructure fault
        if is_fatal(exc):
            raise
        log.warning("task %s: its %s environment did not start: %s: %s", task.id, spec.backend,
                    type(exc).__name__, exc)
        error = f"environment did not start: {type(exc).__name__}: {exc}"
        return _failed(task, error, INFRASTRUCTURE, started, {"environment_error": error})
    with environment, bound_environment(environment):
        return _attempt(agent, benchmark, task, environment, started)


def _attempt(agent: BaseAgent, benchmark: BenchmarkAdapter, task: Task, environment: TaskEnvironment | None,
             started: float) -> Observation:
    """Solve and grade `task`, graded inside `environment` when the agent acted in one."""
    try:
        trajectory = _checked(agent.solve(task), Trajectory, f"{type(agent).__name__}.solve")
    except Exception as exc:  # noqa: BLE001 - a crashing agent is evidence, recorded with its kind
        _raise_if_fatal(exc)
        kind = INFRASTRUCTURE if isinstance(exc, (LLMError, TimeoutError, OSError)) else AGENT_ERROR
        log.warning("agent failed on task %s (%s): %s: %s", task.id, kind, type(exc).__name__, exc)
        error = f"{type(exc).__name__}: {exc}"
        return _failed(task, error, kind, started, {"error": error})
    try:
        feedback = _checked(benchmark.evaluate(task, trajectory) if environment is None
                            else benchmark.evaluate_in(task, trajectory, environment),
                            Feedback, f"{type(benchmark).__name__}.evaluate")
    except Exception as exc:  # noqa: BLE001 - a grader crash is an infrastructure fault, not a wrong answer
        _raise_if_fatal(exc)
        log.warning("grader failed on task %s: %s: %s", task.id, type(exc).__name__, exc)
        error = f"{type(exc).__name__}: {exc}"
        raw = {"grader_error": error, ERROR_KIND_KEY: INFRASTRUCTURE}
        feedback = Feedback(False, 0.0, detail=f"grader error: {error}", raw=raw)
    return Observation(task, trajectory, _timed(feedback, started))


def _checked(value: object, expected: type, call: str) -> Any:
    """`value` when it is an `expected`; else a TypeError naming the user's `call` and what it returned."""
    if not isinstance(value, expected):
        raise TypeError(f"{call} returned {type(value).__name__}, not a {expected.__name__} (agent_evolve.types)")
    return value


def _raise_if_fatal(exc: Exception) -> None:
    if is_fatal(exc) or isinstance(exc, BudgetExceededError):
        raise exc


def _failed(task: Task, error: str, kind: str, started: float, raw: dict[str, str]) -> Observation:
    """A failed observation with no answer: `error` in its one step, its kind in the feedback."""
    trajectory = Trajectory(task_id=task.id, output="", steps=[{"error": error}])
    feedback = Feedback(False, 0.0, detail=f"{kind}: {error}", raw={**raw, ERROR_KIND_KEY: kind})
    return Observation(task, trajectory, _timed(feedback, started))


def _timed(feedback: Feedback, started: float) -> Feedback:
    feedback.raw.setdefault("seconds", round(time.monotonic() - started, 3))
    return feedback


def reload_agent(agent: BaseAgent, factory: Callable[[Path], BaseAgent], path: Path) -> BaseAgent:
    """The agent as the workspace at `path` now is: hot reload re-reads its files, cold reload builds a new one."""
    if (path / "manifest.yaml").exists() and load_manifest(path).reload_strategy == "cold":
        return factory(path)
    agent.reload_from_fs()
    return agent


@dataclass
class Announcer:
    """Tells the live display (`progress`; None: nobody listens) of one phase of a cycle and of its finished solves."""

    progress: Progress | None
    cycle: int
    phase: str
    total: int = 0
    done: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def say(self, **fields: object) -> None:
        if self.progress is not None:
            self.progress(ProgressEvent(cycle=self.cycle, phase=self.phase, **fields))  # type: ignore[arg-type]

    def solved(self, observation: Observation) -> None:
        """One more task of the phase finished (an `on_done` for `solve_all`; workers call it concurrently)."""
        with self.lock:
            self.done += 1
            done = self.done
        self.say(done=done, total=self.total)

    def reached(self, done: int) -> None:
        """`done` solves of the phase have finished (an `on_progress` for `measure`)."""
        self.done = done
        self.say(done=done, total=self.total)


def solve_all(agent: BaseAgent, benchmark: BenchmarkAdapter, tasks: list[Task], concurrency: int,
              on_done: Callable[[Observation], None] | None = None, executor: Executor | None = None
              ) -> list[Observation]:
    """Attempt every task on `executor` (default: `concurrency` threads here); results come back in task order."""
    runner = executor if executor is not None else ThreadExecutor(concurrency)
    return runner.run(attempt, agent, benchmark, tasks, on_done)


def model_usage(trajectory: Trajectory) -> Usage:
    """The model usage a solve's trajectory steps report (a step without a call count is one call)."""
    total = Usage()
    for step in trajectory.steps:
        usage = step.get("usage") if isinstance(step, dict) else None
        if isinstance(usage, dict):
            total += Usage(int(usage.get("calls", 1)), int(usage.get("input_tokens", 0)),
                           int(usage.get("output_tokens", 0)), float(usage.get("cost", 0.0)))
    return total


def is_infrastructure_failure(observation: Observation) -> bool:
    return observation.feedback.raw.get(ERROR_KIND_KEY) == INFRASTRUCTURE


def error_counts(observations: list[Observation]) -> dict[str, int]:
    """How many observations failed with each error kind."""
    return dict(Counter(kind for o in observations if (kind := o.feedback.raw.get(ERROR_KIND_KEY))))


def graded_only(observations: list[Observation]) -> list[Observation]:
    """The attempts that were graded as answers: infrastructure failures are left out."""
    return [o for o in observations if not is_infrastructure_failure(o)]


def graded_mean(graded: list[Observation]) -> float:
    """Mean score of graded attempts (0.0 for none)."""
    return sum(o.feedback.score for o in graded) / len(graded) if graded else 0.0


def mean_score(observations: list[Observation]) -> float:
    """Mean score over the graded attempts; infrastructure failures are not answers and are left out."""
    return graded_mean(graded_only(observations))


def infrastructure_problem(failed: int, total: int, max_ratio: float, what: str) -> str:
    """Why `total` attempts of `what` cannot be used: more than `max_ratio` failed for infrastructure ('' if not)."""
    if not (total > 0 and failed / total > max_ratio):
        return ""
    return (f"{failed} of {total} {what} failed for infrastructure reasons "
            f"(more than max_infra_failure_ratio={max_ratio})")


def batch_failure(attempts: int, failed: int, max_ratio: float) -> str:
    """Why a cycle's batch cannot be learned from: too many infrastructure failures ('' when it can)."""
    problem = infrastructure_problem(failed, attempts, max_ratio, "batch tasks")
    return f"{problem}; the cycle is not scored" if problem else ""


@dataclass
class HoldoutMeasure:
    """Per-task scores (infrastructure failures left out), attempts, infrastructure failures and model usage;
    `unscored`: tasks a stop rule left out, `discarded`: attempts that finished in flight after it stopped."""

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
        """Every field; `unscored` and `discarded` only when a stop rule left tasks out."""
        data = asdict(self)
        if not self.unscored:
            del data["unscored"], data["discarded"]
        return data

    def infrastructure_problem(self, max_ratio: float, what: str) -> str:
        problem = infrastructure_problem(self.infrastructure_failures, self.attempts, max_ratio, "holdout attempts")
        return f"{what}: {problem}" if problem else ""


def measure(agent: BaseAgent, benchmark: BenchmarkAdapter, tasks: list[Task], *, repeats: int, concurrency: int,
            on_progress: Callable[[int], None] | None = None, executor: Executor | None = None,
            stop: StopRule | None = None) -> HoldoutMeasure:
    """Solve each task `repeats` times (buffered memories and drafts discarded); with `stop`, scoring ends at the
    first complete prefix of `tasks` it stops on (the rest `unscored`), whatever order the tasks finish in."""
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
