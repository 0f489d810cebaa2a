"""What the external adapters share: a base over lazily indexed records, data paths, fenced code blocks."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.support.splits import split_ids
from agent_evolve.errors import ConfigError, UnknownNameError
from agent_evolve.text.fences import LINE_TAGGED_BLOCK
from agent_evolve.types import Task

T = TypeVar("T")
V = TypeVar("V")


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """The fenced ``` code blocks of a text, in order: (language tag in lower case, may be empty; body)."""
    return [(lang.lower(), body) for lang, body in LINE_TAGGED_BLOCK.findall(text)]


def resolve_path(data_path: str | None, env_var: str) -> str | None:
    """The data path from the constructor argument, else from the environment variable, else None."""
    return data_path or os.environ.get(env_var) or None


@dataclass
class Lazy(Generic[V]):
    """A value computed on first use, once, however many threads ask for it at the same time."""

    compute: Callable[[], V]
    _done: bool = field(default=False, init=False)
    _value: V | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def value(self) -> V:
        """Compute on first use and return the value."""
        with self._lock:
            if not self._done:
                self._value, self._done = self.compute(), True
            return self._value  # type: ignore[return-value]  # set once _done


class LazyIndex(Lazy[dict[str, T]]):
    """A thread-safe, load-once mapping from task id to a benchmark record."""

    def get(self, task_id: str, benchmark: str) -> T:
        """The record of one task id; a clear error when the id is not in the data."""
        items = self.value()
        if task_id not in items:
            raise UnknownNameError(f"{benchmark}: no task with id {task_id!r} in the loaded data")
        return items[task_id]


class IndexedBenchmark(BenchmarkAdapter, Generic[T]):
    """An adapter over records `_load` reads once, split by the external adapters' rule (one id on each side)."""

    def __init__(self, seed: int, test_fraction: float) -> None:
        if not 0.0 < test_fraction < 1.0:
            raise ConfigError(f"test_fraction must be between 0 and 1 (exclusive), got {test_fraction!r}")
        self.seed = seed
        self.test_fraction = test_fraction
        self._index: LazyIndex[T] = LazyIndex(self._load)

    def _load(self) -> dict[str, T]:
        """Task id -> record."""
        raise NotImplementedError

    def to_task(self, task_id: str, record: T) -> Task:
        """The task the agent sees for one record."""
        raise NotImplementedError

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        """Tasks of one split, in the seeded order."""
        index = self._index.value()
        ids = split_ids(sorted(index), self.seed, self.test_fraction, both_sides=True).ids(split, limit)
        return [self.to_task(i, index[i]) for i in ids]
