"""The trial runner (Hermit's run_agent): lets an engine score a candidate on train and validation tasks only."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.curtailment import PrefixWatch, StopRule, StopScoring
from agent_evolve.engine.solving import model_usage, solve_all
from agent_evolve.errors import TrialError
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

AgentFactory = Callable[[Path], BaseAgent]


@dataclass
class TrialResult:
    """One trial attempt; `hidden` (trajectory_only) means success and score carry no grade (score is NaN)."""

    task_id: str
    success: bool
    score: float
    detail: str
    output: str
    hidden: bool = False
    calls: int = 0
    tokens: int = 0


def trial_mean(scores: Sequence[float]) -> float:
    """A trial's score: the mean over its tasks in task order (0.0 for none)."""
    return sum(scores) / len(scores) if scores else 0.0


@dataclass
class TrialReport:
    """The graded tasks in task order; `unscored` lists those a stop rule left unsolved."""

    results: list[TrialResult]
    unscored: list[str] = field(default_factory=list)

    @property
    def mean_score(self) -> float:
        return trial_mean([r.score for r in self.results])

    def cost_per_task(self) -> dict[str, float]:
        """Model calls and tokens per graded task: what a technique costs at solve time."""
        n = max(1, len(self.results))
        return {"calls": sum(r.calls for r in self.results) / n, "tokens": sum(r.tokens for r in self.results) / n}


class TrialRunner:
    """Runs a fresh agent on a candidate workspace over train or validation tasks; holdout and test ids are refused.

    Validation tasks (`val_ratio`) are never shown to the engine as trajectories; only their scores come back.
    """

    def __init__(
        self,
        train_tasks: dict[str, Task],
        benchmark: BenchmarkAdapter,
        agent_factory: AgentFactory,
        workspace_root: Path,
        concurrency: int = 1,
        default_ids: list[str] | None = None,
        hide_feedback: bool = False,
        validation_tasks: dict[str, Task] | None = None,
        on_solved: Callable[[int], None] | None = None,
    ):
        self.train_tasks = train_tasks
        self.validation_tasks = dict(validation_tasks or {})
        self.benchmark = benchmark
        self.agent_factory = agent_factory
        self.workspace_root = workspace_root.resolve()
        self.concurrency = concurrency
        self.default_ids = list(default_ids or [])
        self.hide_feedback = hide_feedback
        self.on_solved = on_solved  # gets the count of tasks this runner has graded so far, for a live display
        self.solved = 0
        self._count_lock = threading.Lock()

    @property
    def validation_ids(self) -> list[str]:
        """The run's validation task ids, in plan order (empty when `val_ratio` is 0)."""
        return list(self.validation_tasks)

    def __call__(
        self,
        task_ids: list[str] | None = None,
        workspace: str | Path | None = None,
        on_result: Callable[[TrialResult], None] | None = None,
        stop: StopRule | None = None,
    ) -> TrialReport:
        """Score `workspace` (default: the current working copy) on `task_ids` (default: this cycle's batch).

        `on_result` gets each task's result as soon as it is graded (from worker threads when concurrent), so a
        caller can record it before a crash could lose it. `stop` (never with hidden feedback: it would read the
        grades) is asked about each longer graded prefix of `task_ids`; once it says stop, no further task starts
        and the report holds that prefix (the same whatever order the tasks finished in).
        """
        ids = list(task_ids) if task_ids is not None else self.default_ids
        tasks = {**self.train_tasks, **self.validation_tasks}
        refused = [i for i in ids if i not in tasks]
        if refused:
            raise TrialError(f"trial accepts train and validation task ids only; refused: {refused[:10]}")
        if stop is not None and (self.hide_feedback or len(set(ids)) < len(ids)):
            raise TrialError("a trial stop rule needs visible grades and distinct task ids")
        path = Path(workspace).resolve() if workspace is not None else self.workspace_root
        if path != self.workspace_root and self.workspace_root not in path.parents:
            raise TrialError(f"trial workspace {path} must be inside the run's workspace {self.workspace_root}")
        agent = self.agent_factory(path)
        graded: dict[str, Observation] = {}
        watch = PrefixWatch(ids, 1, stop) if stop is not None else None

        def done(o: Observation) -> None:
            if on_result is not None:
                on_result(self._result(o))
            self._count()
            graded[o.task.id] = o
            if watch is not None and watch.add(o.task.id, o.feedback.score):
                raise StopScoring

        try:
            observations = solve_all(agent, self.benchmark, [tasks[i] for i in ids], self.concurrency, done)
        except StopScoring:
            kept = watch.kept() if watch is not None else set(ids)
            return TrialReport([self._result(graded[i]) for i in ids if i in kept], [i for i in ids if i not in kept])
        return TrialReport([self._result(o) for o in observations])

    def _count(self) -> None:
        """One more graded task (from worker threads); tell `on_solved` the running total."""
        with self._count_lock:
            self.solved += 1
            solved = self.solved
        if self.on_solved is not None:
            self.on_solved(solved)

    def _result(self, o: Observation) -> TrialResult:
        """A graded attempt as the engine may see it (no grade under trajectory_only)."""
        usage = model_usage(o.trajectory)
        if self.hide_feedback:
            return TrialResult(o.task.id, False, math.nan, "", o.trajectory.output, True, usage.calls,
                               usage.total_tokens)
        return TrialResult(o.task.id, o.feedback.success, o.feedback.score, o.feedback.detail, o.trajectory.output,
                           calls=usage.calls, tokens=usage.total_tokens)
