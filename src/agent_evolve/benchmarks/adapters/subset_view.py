"""A subset file laid over any benchmark, for adapters that take no `subset=` argument themselves."""

from __future__ import annotations

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.support.common import Lazy
from agent_evolve.benchmarks.support.splits import PathLike, TaskSplits, apply_subset, serve
from agent_evolve.environments.task_env import EnvironmentSpec, TaskEnvironment
from agent_evolve.types import Feedback, Task, Trajectory


class SubsetView(BenchmarkAdapter):
    """Serves only the ids a subset file lists, in its order, from the inner benchmark's two splits."""

    def __init__(self, inner: BenchmarkAdapter, subset: PathLike) -> None:
        self.inner = inner
        self.subset = subset
        self.name = inner.name
        self.score_range = inner.score_range
        self.answer_kind = inner.answer_kind
        self._loaded = Lazy(self._load)

    def _load(self) -> tuple[dict[str, Task], TaskSplits]:
        """Read every task of the inner benchmark (once, through `_loaded`) and narrow its splits to the subset
        (ConfigError if bad)."""
        train, test = self.inner.get_tasks("train", None), self.inner.get_tasks("test", None)
        full = TaskSplits(tuple(t.id for t in train), tuple(t.id for t in test))
        return {t.id: t for t in (*train, *test)}, apply_subset(full, self.subset)

    def identity(self) -> str:
        return self.built_from or self.inner.identity()

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        """The subset's tasks of `split`, in the file's order."""
        tasks, splits = self._loaded.value()
        return serve(tasks, splits, split, limit)

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Graded by the inner benchmark."""
        return self.inner.evaluate(task, trajectory)

    def environment(self, task: Task) -> EnvironmentSpec | None:
        """The inner benchmark's environment for the task."""
        return self.inner.environment(task)

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        """Graded by the inner benchmark in the environment the agent acted in."""
        return self.inner.evaluate_in(task, trajectory, environment)

    def check_ready(self) -> None:
        """Ready when the inner benchmark is and the subset names only its tasks."""
        self.inner.check_ready()
        self._loaded.value()
