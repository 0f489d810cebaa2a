"""Small helpers every external adapter shares: deterministic splits, lazy indexes, fenced code blocks."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from agent_evolve.benchmarks.base import SPLITS
from agent_evolve.errors import ConfigError, UnknownNameError
from agent_evolve.task_order import seeded_order

T = TypeVar("T")

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class FencedBlock:
    """One Markdown code block: its language tag (lower case, may be empty) and its body."""

    lang: str
    body: str


def fenced_blocks(text: str) -> list[FencedBlock]:
    """Return the fenced ``` code blocks of a text, in order."""
    return [FencedBlock(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]


def check_fraction(test_fraction: float) -> float:
    """Validate the constructor argument test_fraction (strictly between 0 and 1)."""
    if not 0.0 < test_fraction < 1.0:
        raise ConfigError(f"test_fraction must be between 0 and 1 (exclusive), got {test_fraction!r}")
    return test_fraction


def split_ids(ids: Sequence[str], split: str, seed: int, test_fraction: float) -> list[str]:
    """Deterministic train/test split: order ids by a seeded hash, the first share is the test split."""
    if split not in SPLITS:
        raise ConfigError(f"split must be one of {SPLITS}, got {split!r}")
    if len(set(ids)) != len(ids):
        raise ConfigError("task ids must be unique to split them; the data holds duplicate ids")
    order = seeded_order(ids, seed)
    n_test = round(len(order) * test_fraction)
    if len(order) >= 2:
        n_test = min(max(n_test, 1), len(order) - 1)
    return order[:n_test] if split == "test" else order[n_test:]


def take(items: list[T], limit: int | None) -> list[T]:
    """The first `limit` items (all of them when limit is None)."""
    if limit is None:
        return list(items)
    if limit < 0:
        raise ConfigError(f"limit must be >= 0 or None, got {limit!r}")
    return items[:limit]


def resolve_path(data_path: str | None, env_var: str) -> str | None:
    """The data path from the constructor argument, else from the environment variable, else None."""
    return data_path or os.environ.get(env_var) or None


@dataclass
class LazyIndex(Generic[T]):
    """A thread-safe, load-once mapping from task id to a benchmark record."""

    loader: Callable[[], dict[str, T]]
    _items: dict[str, T] | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def items(self) -> dict[str, T]:
        """Load on first use and return the mapping."""
        with self._lock:
            if self._items is None:
                self._items = self.loader()
            return self._items

    def get(self, task_id: str, benchmark: str) -> T:
        """The record of one task id; a clear error when the id is not in the data."""
        items = self.items()
        if task_id not in items:
            raise UnknownNameError(f"{benchmark}: no task with id {task_id!r} in the loaded data")
        return items[task_id]
