"""Deterministic train/test splits by stable hashing, and subset files that narrow a benchmark to chosen ids."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from agent_evolve.benchmarks.answer_kinds import AnswerKind, with_kind
from agent_evolve.benchmarks.base import SPLITS, BenchmarkAdapter
from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.task_order import is_dev, seeded_order
from agent_evolve.types import Task

PathLike = str | os.PathLike[str]
T = TypeVar("T")


@dataclass(frozen=True)
class TaskSplits:
    """The ordered ids of each split of one benchmark."""

    train: tuple[str, ...]
    test: tuple[str, ...]

    def ids(self, split: str, limit: int | None = None) -> list[str]:
        """The first `limit` ids of `split` (all of them when `limit` is None)."""
        if split not in SPLITS:
            raise ConfigError(f"unknown split {split!r}; expected one of {SPLITS}")
        if limit is not None and limit < 0:
            raise ConfigError(f"limit must be >= 0 or None, got {limit}")
        ids = self.train if split == "train" else self.test
        return list(ids if limit is None else ids[:limit])


def split_ids(ids: Sequence[str], seed: int, test_fraction: float, fixed: Mapping[str, str] | None = None, *,
              both_sides: bool = False) -> TaskSplits:
    """Order ids by their seeded hash and put round(n * test_fraction) of those not `fixed` to a split in test;
    `both_sides` keeps one id in each split when there are two or more (the external adapters' rule)."""
    if not 0.0 <= test_fraction <= 1.0:
        raise ConfigError(f"test_fraction must be within [0, 1], got {test_fraction}")
    if len(set(ids)) != len(ids):
        raise ConfigError("task ids must be unique")
    fixed = fixed or {}
    for item_id, split in fixed.items():
        if split not in SPLITS:
            raise ConfigError(f"task {item_id!r} has unknown split {split!r}; expected one of {SPLITS}")
    ordered = seeded_order(ids, seed)
    free = [item_id for item_id in ordered if item_id not in fixed]
    n_test = round(len(free) * test_fraction)
    if both_sides and len(free) >= 2:
        n_test = min(max(n_test, 1), len(free) - 1)
    test = set(free[:n_test]) | {item_id for item_id, split in fixed.items() if split == "test"}
    return TaskSplits(train=tuple(item_id for item_id in ordered if item_id not in test),
                      test=tuple(item_id for item_id in ordered if item_id in test))


def subset_from_dict(data: object, source: str) -> dict[str, Any]:
    """The JSON form of a subset, validated and normalised: {"train": [ids], "test": [ids], "meta": {...}} (free-form
    metadata on how it was chosen); `source` names where it came from in errors."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"subset {source} must be a JSON object with 'train' and 'test' lists")
    subset: dict[str, Any] = {}
    for split in SPLITS:
        ids = data.get(split, [])
        if not isinstance(ids, list | tuple) or not all(isinstance(item_id, str) for item_id in ids):
            raise ConfigError(f"subset {source}: {split!r} must be a list of task id strings")
        subset[split] = list(ids)
    meta = data.get("meta", {})
    if not isinstance(meta, Mapping):
        raise ConfigError(f"subset {source}: 'meta' must be an object")
    return {**subset, "meta": dict(meta)}


def load_subset(path: PathLike) -> dict[str, Any]:
    """Read a subset file: JSON {"train": [ids], "test": [ids], "meta": {...}}."""
    path = Path(path)
    try:
        data = parse_json(path.read_text(encoding="utf-8"), f"subset file {path}", ConfigError)
    except FileNotFoundError as exc:
        raise ConfigError(f"subset file {path} does not exist") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"subset file {path}: not UTF-8 text (byte {exc.start})") from None
    return subset_from_dict(data, f"file {path}")


def write_subset(path: PathLike, subset: Mapping[str, Any]) -> Path:
    """Write a subset (its JSON form) to `path`, parents created, and return the path."""
    path = Path(path)
    data = subset_from_dict(subset, f"for {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def apply_subset(splits: TaskSplits, subset_path: PathLike | None) -> TaskSplits:
    """Serve only the ids a subset file lists (in its order); with no file, `splits` unchanged."""
    if subset_path is None:
        return splits
    subset = load_subset(subset_path)
    train, test = subset["train"], subset["test"]
    known = set(splits.train) | set(splits.test)
    unknown = [item_id for item_id in (*train, *test) if item_id not in known]
    if unknown:
        raise ConfigError(f"subset file {subset_path} names unknown task ids: {unknown[:10]}")
    both = sorted(set(train) & set(test))
    if both:
        raise ConfigError(f"subset file {subset_path} puts ids in both train and test: {both[:10]}")
    return TaskSplits(train=tuple(dict.fromkeys(train)), test=tuple(dict.fromkeys(test)))


def serve(tasks: Mapping[str, Task], splits: TaskSplits, split: str, limit: int | None,
          kind: AnswerKind | None = None) -> list[Task]:
    """Fresh copies of the first `limit` tasks of `split`, so callers cannot alter the benchmark's own tasks; a
    task that declares no answer kind gets `kind` (the benchmark's declaration) in its metadata."""
    return [Task(id=i, input=tasks[i].input, metadata=with_kind(copy.deepcopy(tasks[i].metadata), kind))
            for i in splits.ids(split, limit)]


def lookup(records: Mapping[str, T], task_id: str, what: str) -> T:
    """`records[task_id]`, or a ConfigError saying that `task_id` is not `what`."""
    try:
        return records[task_id]
    except KeyError:
        raise ConfigError(f"{task_id!r} is not {what}") from None


class ServedBenchmark(BenchmarkAdapter):
    """An adapter whose tasks are all in memory (`_tasks`, by id) in fixed `splits`; `get_tasks` serves copies."""

    _tasks: Mapping[str, Task]
    splits: TaskSplits

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        """The first `limit` tasks of `split` (all when None), in the splits' order."""
        return serve(self._tasks, self.splits, split, limit, self.answer_kind)


def dev_tasks(benchmark: BenchmarkAdapter, limit: int | None = None) -> list[Task]:
    """The first `limit` tasks of the benchmark's `dev` split: the train tasks `task_order.is_dev` names, which
    probes and analyses use to design agents and settings and which no gate's holdout is ever carved from."""
    return [t for t in benchmark.get_tasks("train", limit=None) if is_dev(t.id)][:limit]
