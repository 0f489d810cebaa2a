"""Scoring one workspace on the test tasks in every draw, and writing each finished scoring to the ledgers."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.loop import Progress
from agent_evolve.lift.draws import DrawLayout
from agent_evolve.lift.analysis import task_means
from agent_evolve.lift.ledger import View, ViewLedgers
from agent_evolve.lift.plan import BASELINE
from agent_evolve.lift.scoring import AgentMaker, score_tasks, store_cost, workspace_key
from agent_evolve.stats import mean
from agent_evolve.types import Task

DrawAgent = Callable[[int], AgentMaker | None]
"""The agent maker of draw `d` (None: the workspace's own agent)."""


@dataclass
class Drawn:
    """A workspace's test scores in each draw, its content key, its mean tokens per task in each draw, its cost."""

    key: str
    draws: list[dict[str, float]] = field(default_factory=list)
    tokens_per_task: list[float] = field(default_factory=list)
    cost: dict[str, float] = field(default_factory=dict)

    @property
    def scores(self) -> dict[str, float]:
        return task_means(self.draws)


@dataclass
class DrawScorer:
    """Scores workspaces on one experiment's test tasks in each of its draws; every completed scoring is a row
    in the test-view ledgers, under the experiment's plan id."""

    benchmark: BenchmarkAdapter
    tests: list[Task]
    config: EvolveConfig
    layout: DrawLayout
    views: ViewLedgers
    plan_id: str
    progress: Progress | None = None

    def charged(self, who: str) -> str | None:
        """Whose rows of a score file count as `who`'s cost: all of them in a file of its own; in an unregistered
        folder's file shared by content, the rows the arm made (the baseline's, older than that mark, are all)."""
        return who if self.layout.legacy and who != BASELINE else None

    def record(self, who: str, key: str, draw: int, scores: Mapping[str, float]) -> None:
        """A complete scoring of the test tasks into the ledgers (each skips a scoring it holds already)."""
        if scores and len(scores) == len(self.tests):
            self.views.record(View(self.plan_id, who, key, draw, tuple(scores), mean(list(scores.values()))))

    def record_run(self, who: str, key: str, draws: Sequence[Mapping[str, float]]) -> None:
        """Every draw of a finished arm (read back from its record) into the ledgers: a folder from before the
        ledger counts its views when it is resumed or reported."""
        for draw, scores in enumerate(draws):
            self.record(who, key, draw, scores)

    def score(self, workspace: Path, who: str, agent: DrawAgent | None = None) -> Drawn:
        """`workspace` solved on the test tasks by `who` (its score files and ledger rows name it), draw by draw."""
        key = workspace_key(workspace)
        drawn = Drawn(key)
        totals = {"solves": 0.0, "tokens": 0.0, "seconds": 0.0}
        for draw in range(self.layout.draws):
            store = self.layout.store(draw, who, key)
            scores = score_tasks(workspace, self.benchmark, self.tests, store, self.layout.config(self.config, draw),
                                 who, self.progress, sampling_seed=self.layout.sampling_seed(draw),
                                 make_agent=agent(draw) if agent else None)
            self.record(who, key, draw, scores)
            made = store_cost(store, self.charged(who))
            every = store_cost(store)
            drawn.draws.append(scores)
            drawn.tokens_per_task.append(every["tokens"] / every["solves"] if every["solves"] else 0.0)
            totals = {k: totals[k] + made[k] for k in totals}
        drawn.cost = totals
        return drawn
