"""`agent-evolve ablate`: Ratchet's ablation arms (full recipe first; A1 is its no-skill control, so no no-edit
control runs), each a resumable lift experiment in `<out>/<arm>/`, in one table of held-out gains and test lifts."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from agent_evolve.algorithms.ratchet.ablations import (FULL, arm_params, heldout_gain, markdown, parse_arms,
                                                       table_row, with_deltas)
from agent_evolve.algorithms.ratchet.bank import round_scores
from agent_evolve.algorithms.ratchet.run_flags import ratchet_run_options
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.cli.experiment import parse_ints
from agent_evolve.cli.progress import LiveProgress
from agent_evolve.cli.run import benchmark_from_options, build_config, engine_options, model_options
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.experiment import run_lift_experiment


def run_ablation(
    *, agent: str, benchmark: str | BenchmarkAdapter, arms: list[str], seeds: list[int], cycles: int, test_limit: int,
    out_dir: Path, config: EvolveConfig, allow_small_test: bool = False,
    progress: Callable[[ProgressEvent], None] | None = None,
) -> list[dict[str, Any]]:
    """Run (or resume) the full arm and each of ``arms``; write ablation.json and ablation.md; the rows."""
    rows = []
    for arm in [FULL, *[a for a in arms if a != FULL]]:
        folder = out_dir / arm
        folder.mkdir(parents=True, exist_ok=True)
        arm_config = dataclasses.replace(config, engine_params=arm_params(arm, config.engine_params))
        report = run_lift_experiment(agent=agent, benchmark=benchmark, engine="ratchet", seeds=seeds, cycles=cycles,
                                     test_limit=test_limit, out_dir=folder, config=arm_config, progress=progress,
                                     control=False, allow_small_test=allow_small_test)
        gains = [g for run in report.get("runs", []) if (g := heldout_gain(round_scores(Path(run["workspace"]))))]
        rows.append(table_row(arm, report, gains))
        rows = with_deltas(rows)
        atomic_write(out_dir / "ablation.json", json.dumps({"rows": rows}, indent=1))
        atomic_write(out_dir / "ablation.md", markdown(rows))
    return rows


@click.command("ablate")
@click.option("--agent", default="humaneval", show_default=True, help="Seed workspace name or path.")
@click.option("--benchmark", default="humaneval", show_default=True)
@click.option("--arms", default="A1", show_default=True,
              help="Comma-separated arms: the paper's A1, A3, A4 and ours (ours-*); the full arm always runs.")
@click.option("--seeds", default="0,1,2", show_default=True, help="Comma-separated run seeds.")
@click.option("--cycles", type=int, default=10, show_default=True, help="Ratchet rounds per arm and seed.")
@click.option("--test-limit", type=int, default=120, show_default=True, help="Test tasks scored per workspace.")
@click.option("--allow-small-test", is_flag=True, help="Accept a test split under 120 tasks (its lift is noise).")
@click.option("--batch-size", type=int)
@click.option("--holdout-limit", type=int)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="experiments/ratchet-ablation",
              show_default=True)
@ratchet_run_options
@engine_options
@model_options
def ablate_command(agent: str, benchmark: str, arms: str, seeds: str, cycles: int, test_limit: int,
                   allow_small_test: bool, out_dir: str, **options: Any) -> None:
    """Run Ratchet's ablation arms (and the full recipe) over seeds and write one table."""
    console = Console()
    chosen = parse_arms(arms)
    config = build_config(options.pop("config_path"), **options)
    with LiveProgress(console, cycles) as progress:
        rows = run_ablation(agent=agent, benchmark=benchmark_from_options(benchmark, options, config), arms=chosen,
                            seeds=parse_ints(seeds, "--seeds"), cycles=cycles,
                            test_limit=test_limit, out_dir=Path(out_dir), config=config,
                            allow_small_test=allow_small_test, progress=progress)
    console.print(markdown(rows))
    console.print(f"written to {out_dir}/ablation.json and ablation.md")
