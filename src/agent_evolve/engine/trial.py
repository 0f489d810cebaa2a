"""The trial runner (Hermit's run_agent): lets an engine score a candidate workspace on train tasks only."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.solving import solve_all
from agent_evolve.errors import TrialError
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Task

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


@dataclass
class TrialReport:
    results: list[TrialResult]

    @property
    def mean_score(self) -> float:
        return sum(r.score for r in self.results) / len(self.results) if self.results else 0.0


class TrialRunner:
    """Runs a fresh agent on a candidate workspace over train tasks; holdout and test ids are refused."""

    def __init__(
        self,
        train_tasks: dict[str, Task],
        benchmark: BenchmarkAdapter,
        agent_factory: AgentFactory,
        workspace_root: Path,
        concurrency: int = 1,
        default_ids: list[str] | None = None,
        hide_feedback: bool = False,
    ):
        self.train_tasks = train_tasks
        self.benchmark = benchmark
        self.agent_factory = agent_factory
        self.workspace_root = workspace_root.resolve()
        self.concurrency = concurrency
        self.default_ids = list(default_ids or [])
        self.hide_feedback = hide_feedback

    def __call__(self, task_ids: list[str] | None = None, workspace: str | Path | None = None) -> TrialReport:
        """Score `workspace` (default: the current working copy) on `task_ids` (default: this cycle's batch)."""
        ids = list(task_ids) if task_ids is not None else self.default_ids
        refused = [i for i in ids if i not in self.train_tasks]
        if refused:
            raise TrialError(f"trial accepts train task ids only; refused: {refused[:10]}")
        path = Path(workspace).resolve() if workspace is not None else self.workspace_root
        if path != self.workspace_root and self.workspace_root not in path.parents:
            raise TrialError(f"trial workspace {path} must be inside the run's workspace {self.workspace_root}")
        agent = self.agent_factory(path)
        observations = solve_all(agent, self.benchmark, [self.train_tasks[i] for i in ids], self.concurrency)
        if self.hide_feedback:
            return TrialReport([TrialResult(o.task.id, False, math.nan, "", o.trajectory.output, True) for o in observations])
        return TrialReport(
            [
                TrialResult(o.task.id, o.feedback.success, o.feedback.score, o.feedback.detail, o.trajectory.output)
                for o in observations
            ]
        )
