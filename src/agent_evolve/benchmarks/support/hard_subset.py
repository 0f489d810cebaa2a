"""Ratchet's hard subset: probe the baseline k times per task and keep the tasks it does not always solve."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.support.splits import write_subset
from agent_evolve.errors import ConfigError
from agent_evolve.task_order import stable_key
from agent_evolve.types import Task, Trajectory

__all__ = ["select_hard_subset", "write_subset"]

SplitSource = Literal["benchmark", "pool"]
ALL = 2**31 - 1  # a get_tasks limit that means every task, for any adapter


def _probe_until(tasks: Sequence[Task], want: int | None, probe: Callable[[Task], float],
                 keep: Callable[[float], bool], workers: int, pass_rates: dict[str, float]) -> list[str]:
    """Probe `tasks` in order, `workers` at a time, until `want` are kept (all of them when None)."""
    kept: list[str] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for start in range(0, len(tasks), workers):
            chunk = tasks[start : start + workers]
            for task, rate in zip(chunk, pool.map(probe, chunk), strict=True):
                pass_rates[task.id] = rate
                if keep(rate):
                    kept.append(task.id)
                if want is not None and len(kept) >= want:
                    return kept
    return kept


Solver = Callable[[Task], Trajectory]


def select_hard_subset(solve: Solver | Sequence[Solver], benchmark: BenchmarkAdapter, k: int = 3,
                       n_train: int | None = None, n_test: int | None = None, seed: int = 0,
                       split_source: SplitSource = "benchmark", drop_never_solved: bool = False,
                       workers: int = 1) -> dict[str, Any]:
    """Probe tasks in a seeded order with one solver (or k, one per probe) and keep those with pass rate < 1 (and > 0
    if `drop_never_solved`) until enough are kept; returns the subset file's JSON form. split_source "benchmark" keeps
    each split's ids apart; "pool" probes both as one, the first `n_test` hard tasks to test, the next to train."""
    if k < 1 or workers < 1:
        raise ConfigError(f"hard subset: k and workers must be >= 1, got k={k}, workers={workers}")
    if split_source not in ("benchmark", "pool"):
        raise ConfigError(f"hard subset: split_source must be 'benchmark' or 'pool', got {split_source!r}")
    solvers = [solve] * k if callable(solve) else list(solve)
    if len(solvers) != k:
        raise ConfigError(f"hard subset: {len(solvers)} solvers given for k={k} probes")

    def probe(task: Task) -> float:
        return sum(benchmark.evaluate(task, each(task)).success for each in solvers) / k

    def keep(rate: float) -> bool:
        return rate < 1.0 and (rate > 0.0 or not drop_never_solved)

    def seeded(tasks: list[Task]) -> list[Task]:
        return sorted(tasks, key=lambda task: stable_key(seed, task.id))

    pass_rates: dict[str, float] = {}
    train_tasks, test_tasks = benchmark.get_tasks("train", ALL), benchmark.get_tasks("test", ALL)
    if split_source == "benchmark":
        test = _probe_until(seeded(test_tasks), n_test, probe, keep, workers, pass_rates)
        train = _probe_until(seeded(train_tasks), n_train, probe, keep, workers, pass_rates)
    else:
        if n_train is None or n_test is None:
            raise ConfigError("hard subset: split_source 'pool' needs both n_train and n_test")
        kept = _probe_until(seeded(train_tasks + test_tasks), n_train + n_test, probe, keep, workers, pass_rates)
        test, train = kept[:n_test], kept[n_test:]
    meta = {"benchmark": benchmark.name, "k": k, "seed": seed, "split_source": split_source,
            "drop_never_solved": drop_never_solved, "pass_rates": pass_rates}
    return {"train": train, "test": test, "meta": meta}
