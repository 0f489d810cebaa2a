"""The trial runner (Hermit's run_agent): lets an engine score a candidate on train and validation tasks only."""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.curtailment import PrefixWatch, StopRule, StopScoring
from agent_evolve.engine.solving import model_usage, solve_all
from agent_evolve.errors import TrialError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task, Usage

AgentFactory = Callable[[Path], BaseAgent]


@dataclass
class TrialResult:
    """One trial attempt (`hidden` under trajectory_only: no grade, score NaN), what it spent (`cost` in US dollars)
    and `log_path`, the train task's logged trajectory ('' for validation tasks, never shown)."""

    task_id: str
    success: bool
    score: float
    detail: str
    output: str
    hidden: bool = False
    calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    time_s: float = 0.0
    log_path: str = ""


def trial_mean(scores: Sequence[float]) -> float:
    """A trial's score: the mean over its tasks in task order (0.0 for none)."""
    return sum(scores) / len(scores) if scores else 0.0


@dataclass
class TrialReport:
    """The graded tasks in task order; `unscored` lists those a stop rule left unsolved; `usage` is the call's
    total model usage (charged to the run's budget) and `time_s` its wall time."""

    results: list[TrialResult]
    unscored: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    time_s: float = 0.0

    @property
    def mean_score(self) -> float:
        return trial_mean([r.score for r in self.results])

    def cost_per_task(self) -> dict[str, float]:
        """Model calls and tokens per graded task: what a technique costs at solve time."""
        n = max(1, len(self.results))
        return {"calls": sum(r.calls for r in self.results) / n, "tokens": sum(r.tokens for r in self.results) / n}


class TrialRunner:
    """Runs a fresh agent on a candidate workspace over train or validation tasks (only their scores come back);
    holdout and test ids are refused."""

    def __init__(self, train_tasks: dict[str, Task], benchmark: BenchmarkAdapter, agent_factory: AgentFactory,
                 workspace_root: Path, concurrency: int = 1, default_ids: list[str] | None = None,
                 hide_feedback: bool = False, validation_tasks: dict[str, Task] | None = None,
                 on_solved: Callable[[int], None] | None = None, ledger: UsageLedger | None = None,
                 log_dir: Path | None = None):
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

    def __call__(self, task_ids: list[str] | None = None, workspace: str | Path | None = None,
                 on_result: Callable[[TrialResult], None] | None = None, stop: StopRule | None = None) -> TrialReport:
        """Score `workspace` (default: the working copy) on `task_ids` (default: this cycle's batch); `on_result`
        hears each result as graded; `stop` (visible grades only) ends it at a graded prefix, as `measure` does."""
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
        started, before, call_dir = time.monotonic(), self._spent(), self._call_dir()
        results: dict[int, TrialResult] = {}  # by observation, so a task asked twice keeps both attempts

        def done(o: Observation) -> None:
            result = results[id(o)] = self._result(o, self._log(call_dir, o))
            if on_result is not None:
                on_result(result)
            self._count()
            graded[o.task.id] = o
            if watch is not None and watch.add(o.task.id, o.feedback.score):
                raise StopScoring

        def report(attempts: list[Observation], unscored: list[str]) -> TrialReport:
            return TrialReport([results[id(o)] for o in attempts], unscored, self._spent() - before,
                               round(time.monotonic() - started, 3))

        try:
            observations = solve_all(agent, self.benchmark, [tasks[i] for i in ids], self.concurrency, done)
        except StopScoring:
            kept = watch.kept() if watch is not None else set(ids)
            return report([graded[i] for i in ids if i in kept], [i for i in ids if i not in kept])
        return report(observations, [])

    def _spent(self) -> Usage:
        return self.ledger.total() if self.ledger is not None else Usage()

    def _call_dir(self) -> Path | None:
        return self.log_dir / f"trial_{next(self._calls)}" if self.log_dir is not None else None

    def _log(self, call_dir: Path | None, o: Observation) -> str:
        """Write a train task's trajectory (never its grade) to the call's log folder; '' when not logged."""
        if call_dir is None or o.task.id not in self.train_tasks:
            return ""
        path = call_dir / f"{re.sub(r'[^A-Za-z0-9._-]', '_', o.task.id)}.json"
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

    def _result(self, o: Observation, log_path: str = "") -> TrialResult:
        """A graded attempt as the engine may see it (no grade under trajectory_only), with its cost."""
        usage, seconds = model_usage(o.trajectory), float(o.feedback.raw.get("seconds", 0.0))
        spent = {"calls": usage.calls, "tokens": usage.total_tokens, "cost": usage.cost, "time_s": seconds,
                 "log_path": log_path}
        if self.hide_feedback:
            return TrialResult(o.task.id, False, math.nan, "", o.trajectory.output, True, **spent)
        return TrialResult(o.task.id, o.feedback.success, o.feedback.score, o.feedback.detail, o.trajectory.output,
                           **spent)
