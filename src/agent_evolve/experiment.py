"""Lift experiments: baseline versus evolved score on a benchmark's untouched test split, over several seeds.

The protocol (arms, resumable test scoring, cost, statistics, report) lives in `agent_evolve.lift`; this module
is its entry point for the API and the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.lift import LiftPlan, markdown_table, run_lift, write_report

__all__ = ["markdown_table", "run_lift_experiment", "write_report"]


def run_lift_experiment(
    *,
    agent: str,
    benchmark: str | BenchmarkAdapter,
    engine: str,
    seeds: list[int],
    cycles: int,
    test_limit: int,
    out_dir: Path,
    config: EvolveConfig,
    progress: Callable[[ProgressEvent], None] | None = None,
    control: bool = True,
    allow_small_test: bool = False,
) -> dict[str, Any]:
    """For each seed: evolve a fresh copy of the seed workspace (and a no-edit control), score it on the test
    tasks the baseline is scored on, and write lift.json, lift.md and lift.png into `out_dir` (resumable)."""
    adapter = resolve_benchmark(benchmark, grader=config.grader) if isinstance(benchmark, str) else benchmark
    name = benchmark if isinstance(benchmark, str) else (adapter.name or type(adapter).__name__)
    plan = LiftPlan(agent, name, engine, tuple(seeds), cycles, test_limit, control, allow_small_test)
    return run_lift(plan, adapter, config, out_dir, progress=progress)
