"""BenchmarkAdapter: where tasks come from, how an attempt is graded, and whether it can run here."""

from __future__ import annotations

from agent_evolve.benchmarks.answer_kinds import AnswerKind, kind_of
from agent_evolve.environments.task_env import EnvironmentSpec, TaskEnvironment
from agent_evolve.types import Feedback, Task, Trajectory

SPLITS: tuple[str, ...] = ("train", "test")


class BenchmarkAdapter:
    """Override `get_tasks` and `evaluate` (and `check_ready` when the benchmark needs data, Docker or keys).

    `get_tasks` returns the same tasks in the same order per split (the loop's cursor and holdout carving rely on
    it); `evaluate` must be thread-safe. `answer_kind` declares what every answer is (docs/answer-kinds.md)."""

    name: str = ""
    built_from: str = ""
    """The name it was built from (`gsm8k`, `jsonl:/abs/tasks.jsonl`), set by `resolve_benchmark`."""
    score_range: tuple[float, float] = (0.0, 1.0)
    """The lowest and highest score `evaluate` gives; curtailment bounds a task not yet scored by it."""
    answer_kind: AnswerKind | None = None

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        """Return tasks from the benchmark dataset (`limit=None`: all of them)."""
        raise NotImplementedError

    def identity(self) -> str:
        """What a run records as its benchmark, which a resumed run must match: the name it was built from, else its
        class."""
        return self.built_from or f"{type(self).__module__}.{type(self).__qualname__}"

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Evaluate an agent's trajectory on a task."""
        raise NotImplementedError

    def kind_of(self, task: Task) -> AnswerKind:
        """The answer kind of `task`: its own declaration, else the benchmark's, else `free`."""
        return kind_of(task, self.answer_kind)

    @property
    def deterministic(self) -> bool:
        """True when grading the same trajectory twice gives the same score; False makes the gate re-measure the
        accepted version in every gate run."""
        return True

    def environment(self, task: Task) -> EnvironmentSpec | None:
        """The environment an agent acts in for `task` (None: the task is answered in text, the default)."""
        return None

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        """Grade an attempt inside the environment the agent acted in (default: `evaluate`, which ignores it)."""
        return self.evaluate(task, trajectory)

    def check_ready(self) -> None:
        """Raise MissingDependencyError naming what to install, set or start; the pre-flight calls it once."""
