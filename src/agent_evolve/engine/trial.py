"""The trial runner (Hermit's run_agent): lets an engine score a candidate on train and validation tasks only."""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.solving import solve_all
from agent_evolve.errors import TrialError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task, Usage

AgentFactory = Callable[[Path], BaseAgent]


@dataclass
class TrialResult:
    """One trial attempt; `hidden` (trajectory_only) means success and score carry no grade (score is NaN).

    `time_s` is the attempt's wall time; `cost` its model cost in US dollars when it can be told apart (trials
    run one task at a time), else None (the report's `usage` holds the call's total); `log_path` is the file
    holding a train task's trajectory ('' for validation tasks, whose trajectories are never shown).
    """

    task_id: str
    success: bool
    score: float
    detail: str
    output: str
    hidden: bool = False
    cost: float | None = None
    time_s: float = 0.0
    log_path: str = ""


@dataclass
class TrialReport:
    """A trial call's results, with its total model usage (charged to the run's budget) and wall time."""

    results: list[TrialResult]
    usage: Usage = field(default_factory=Usage)
    time_s: float = 0.0

    @property
    def mean_score(self) -> float:
        return sum(r.score for r in self.results) / len(self.results) if self.results else 0.0


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
        ledger: UsageLedger | None = None,
        log_dir: Path | None = None,
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
        self.ledger = ledger
        self.log_dir = log_dir
        self._calls = itertools.count(1)

    @property
    def validation_ids(self) -> list[str]:
        """The run's validation task ids, in plan order (empty when `val_ratio` is 0)."""
        return list(self.validation_tasks)

    def __call__(
        self,
        task_ids: list[str] | None = None,
        workspace: str | Path | None = None,
        on_result: Callable[[TrialResult], None] | None = None,
    ) -> TrialReport:
        """Score `workspace` (default: the current working copy) on `task_ids` (default: this cycle's batch).

        `on_result` gets each task's result as soon as it is graded (from worker threads when concurrent), so a
        caller can record it before a crash could lose it.
        """
        ids = list(task_ids) if task_ids is not None else self.default_ids
        tasks = {**self.train_tasks, **self.validation_tasks}
        refused = [i for i in ids if i not in tasks]
        if refused:
            raise TrialError(f"trial accepts train and validation task ids only; refused: {refused[:10]}")
        path = Path(workspace).resolve() if workspace is not None else self.workspace_root
        if path != self.workspace_root and self.workspace_root not in path.parents:
            raise TrialError(f"trial workspace {path} must be inside the run's workspace {self.workspace_root}")
        agent = self.agent_factory(path)
        started, before = time.monotonic(), self._spent()
        mark, call_dir = [before], self._call_dir()
        results: dict[int, TrialResult] = {}

        def done(o: Observation) -> None:
            result = self._result(o, self._task_cost(mark), self._log(call_dir, o))
            results[id(o)] = result
            if on_result is not None:
                on_result(result)
            self._count()

        observations = solve_all(agent, self.benchmark, [tasks[i] for i in ids], self.concurrency, done)
        return TrialReport([results[id(o)] for o in observations], self._spent() - before,
                           round(time.monotonic() - started, 3))

    def _spent(self) -> Usage:
        return self.ledger.total() if self.ledger is not None else Usage()

    def _task_cost(self, mark: list[Usage]) -> float | None:
        """The cost since the previous graded task: one task's own cost when tasks run one at a time."""
        if self.ledger is None or self.concurrency != 1:
            return None
        now = self.ledger.total()
        cost, mark[0] = (now - mark[0]).cost, now
        return cost

    def _call_dir(self) -> Path | None:
        return self.log_dir / f"trial_{next(self._calls)}" if self.log_dir is not None else None

    def _log(self, call_dir: Path | None, o: Observation) -> str:
        """Write a train task's trajectory (never its grade) to the call's log folder; '' when not logged."""
        if call_dir is None or o.task.id not in self.train_tasks:
            return ""
        path = call_dir / f"{re.sub(r'[^A-Za-z0-9._-]', '_', o.task.id)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        trajectory = o.trajectory
        atomic_write(path, json.dumps({"task_id": o.task.id, "input": o.task.input, "output": trajectory.output,
                                       "steps": trajectory.steps, "conversation": trajectory.conversation},
                                      indent=1, default=str))
        return str(path)

    def _count(self) -> None:
        """One more graded task (from worker threads); tell `on_solved` the running total."""
        with self._count_lock:
            self.solved += 1
            solved = self.solved
        if self.on_solved is not None:
            self.on_solved(solved)

    def _result(self, o: Observation, cost: float | None, log_path: str) -> TrialResult:
        """A graded attempt as the engine may see it (no grade under trajectory_only)."""
        seconds = float(o.feedback.raw.get("seconds", 0.0))
        if self.hide_feedback:
            return TrialResult(o.task.id, False, math.nan, "", o.trajectory.output, True, cost, seconds, log_path)
        return TrialResult(o.task.id, o.feedback.success, o.feedback.score, o.feedback.detail, o.trajectory.output,
                           False, cost, seconds, log_path)
