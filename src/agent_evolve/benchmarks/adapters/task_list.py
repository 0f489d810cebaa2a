"""TaskList: a benchmark from tasks held in memory (dicts with a tasks file line's keys, or `Task`) and a metric
function `metric(example, output)`, as in GEPA or DSPy (docs/python-api.md)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_evolve.benchmarks.answer_kinds import check_kind
from agent_evolve.benchmarks.adapters.jsonl import parse_row, to_feedback
from agent_evolve.benchmarks.support.splits import ServedBenchmark, TaskSplits, lookup
from agent_evolve.errors import ConfigError
from agent_evolve.types import Feedback, Task, Trajectory

Example = dict[str, Any] | Task
Metric = Callable[[Any, str], Any]


@dataclass(frozen=True)
class ListedTask:
    """One validated item: the task the agent sees, the item the metric is given, its split and reference answer."""

    task: Task
    example: Example
    split: str
    expected: Any = None


def listed_task(item: object, where: str, default_id: str, split: str) -> ListedTask:
    """Validate one item (`where` in errors; `default_id` when it has no id); a ConfigError names the problem."""
    if isinstance(item, Task):
        if not isinstance(item.input, str) or not item.input.strip():
            raise ConfigError(f"{where}: Task {item.id!r} has no input (a non-empty string)")
        return ListedTask(item, item, split, item.metadata.get("expected", item.metadata.get("answer")))
    if not isinstance(item, dict):
        raise ConfigError(f"{where}: expected a dict with an 'input' (or a Task), got {type(item).__name__}")
    row = parse_row(item, where, default_id)  # the metric is a function: it needs no reference answer
    return ListedTask(row.task, item, row.split or split, row.answer)


class TaskList(ServedBenchmark):
    """`tasks` as the train pool (the run carves its holdout from it), `test` as the test split, graded by `metric`."""

    name = "task-list"

    def __init__(self, tasks: Sequence[Example], metric: Metric, *, test: Sequence[Example] = (),
                 answer_kind: str | None = None) -> None:
        self.answer_kind = None if answer_kind is None else check_kind(answer_kind, "TaskList")
        if not callable(metric):
            raise ConfigError(f"metric must be a function metric(example, output), got {type(metric).__name__}")
        if isinstance(tasks, (str, bytes, dict)) or not isinstance(tasks, Sequence) or not tasks:
            raise ConfigError("tasks must be a non-empty list of dicts (each with an 'input') or Tasks")
        self.metric = metric
        self._items: dict[str, ListedTask] = {}
        first: dict[str, str] = {}
        for name, split, items in (("tasks", "train", tasks), ("test", "test", test)):
            for index, raw in enumerate(items):
                where = f"{name}[{index}]"
                item = listed_task(raw, where, str(index) if split == "train" else f"test-{index}", split)
                if item.task.id in first:
                    raise ConfigError(f"{where}: duplicate id {item.task.id!r} (first in {first[item.task.id]})")
                first[item.task.id] = where
                self._items[item.task.id] = item
        self._tasks = {task_id: item.task for task_id, item in self._items.items()}
        self.splits = TaskSplits(train=tuple(i for i, item in self._items.items() if item.split == "train"),
                                 test=tuple(i for i, item in self._items.items() if item.split == "test"))

    def fingerprint(self) -> str:
        """A hash of every task's id, split, input, metadata and answer: a resumed run must be given the same list."""
        rows = [[i, item.split, item.task.input, item.task.metadata, item.expected] for i, item in self._items.items()]
        return hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def identity(self) -> str:
        return f"tasks {self.fingerprint()}"

    def example(self, task_id: str) -> Example:
        """The item `task_id` came from, as the metric receives it."""
        return lookup(self._items, task_id, "a task of this TaskList").example

    def expected(self, task_id: str) -> Any:
        """The reference answer of `task_id` ("expected" or "answer"), None when it has none."""
        return lookup(self._items, task_id, "a task of this TaskList").expected

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """The metric's grade of the output; a metric that raises gives a failed grade with its message."""
        name = getattr(self.metric, "__name__", type(self.metric).__name__)
        try:
            result = self.metric(self.example(task.id), trajectory.output)
        except Exception as exc:
            return Feedback(False, 0.0, f"metric {name} raised {type(exc).__name__}: {exc}",
                            {"metric_error": repr(exc)})
        return to_feedback(result, name, task.id)
