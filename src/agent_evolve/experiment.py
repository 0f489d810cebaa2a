"""Lift experiments: baseline versus evolved score on a benchmark's untouched test split, over several seeds; the
API's and the CLI's entry to the protocol (arms, resumable scoring, cost, statistics, report) in `agent_evolve.lift`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.lift import (
    DEFAULT_DRAWS, ComparisonPlan, LiftPlan, comparison_markdown, markdown_table, run_comparison, run_lift, write_report,
)

__all__ = ["comparison_markdown", "markdown_table", "run_comparison_experiment", "run_lift_experiment", "write_report"]


def run_lift_experiment(
    *, agent: str, benchmark: str | BenchmarkAdapter, engine: str, seeds: list[int], cycles: int, test_limit: int,
    out_dir: Path, config: EvolveConfig, progress: Callable[[ProgressEvent], None] | None = None,
    control: bool = True, allow_small_test: bool = False, draws: int = DEFAULT_DRAWS, matched: bool = True,
    test_reserve: int | None = None, register_only: bool = False,
) -> dict[str, Any]:
    """Register the plan (`register_only`: and stop), then per seed evolve a fresh workspace and score it, its
    controls and the baseline in `draws` test draws; writes lift.json, .md and .png to `out_dir` (resumable)."""
    adapter, name = _benchmark(benchmark, config)
    plan = LiftPlan(agent, name, engine, tuple(seeds), cycles, test_limit, control, allow_small_test, draws, matched,
                    test_reserve)
    return run_lift(plan, adapter, config, out_dir, progress=progress, register_only=register_only)


def run_comparison_experiment(
    *, agent: str, benchmark: str | BenchmarkAdapter, engines: list[str], seeds: list[int], cycles: int,
    test_limit: int, out_dir: Path, config: EvolveConfig, progress: Callable[[ProgressEvent], None] | None = None,
    control: bool = True, allow_small_test: bool = False, draws: int = DEFAULT_DRAWS,
    test_reserve: int | None = None,
) -> dict[str, Any]:
    """Every engine on the same seeds, splits and config against one shared baseline; writes comparison.json,
    comparison.md and comparison.png (and each engine's lift report) into `out_dir` (resumable)."""
    adapter, name = _benchmark(benchmark, config)
    plan = ComparisonPlan(agent, name, tuple(engines), tuple(seeds), cycles, test_limit, control, allow_small_test,
                          draws, test_reserve)
    return run_comparison(plan, adapter, config, out_dir, progress=progress)


def _benchmark(benchmark: str | BenchmarkAdapter, config: EvolveConfig) -> tuple[BenchmarkAdapter, str]:
    """The adapter and the name the report gives it."""
    adapter = resolve_benchmark(benchmark, grader=config.grader) if isinstance(benchmark, str) else benchmark
    return adapter, benchmark if isinstance(benchmark, str) else (adapter.name or type(adapter).__name__)
