"""`agent-evolve experiment`: measure lift (baseline vs evolved test score) over several seeds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console

from agent_evolve.cli.progress import LiveProgress
from agent_evolve.cli.run import benchmark_from_options, build_config, engine_options, model_options
from agent_evolve.experiment import markdown_table, run_lift_experiment


@click.command("experiment")
@click.option("--agent", default="gsm8k", show_default=True, help="Seed workspace name or path.")
@click.option("--benchmark", default="gsm8k", show_default=True)
@click.option("--engine", default="skillforge", show_default=True)
@click.option("--seeds", default="0,1,2", show_default=True, help="Comma-separated run seeds.")
@click.option("--cycles", type=int, default=2, show_default=True)
@click.option("--test-limit", type=int, default=120, show_default=True, help="Test tasks scored before and after.")
@click.option("--allow-small-test", is_flag=True, help="Accept a test split under 120 tasks (its lift is noise).")
@click.option("--no-control", is_flag=True, help="Skip the no-evolution control arm.")
@click.option("--batch-size", type=int)
@click.option("--holdout-limit", type=int)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="experiments/lift", show_default=True)
@engine_options
@model_options
def experiment_command(
    agent: str, benchmark: str, engine: str, seeds: str, cycles: int, test_limit: int, allow_small_test: bool,
    no_control: bool, out_dir: str, **options: Any
) -> None:
    """Evolve one fresh workspace per seed (and a no-edit control) and compare its test score with the seed
    workspace's task by task; run it again after an interruption to continue."""
    console = Console()
    seed_list = [int(s) for s in seeds.split(",") if s.strip()]
    config = build_config(options.pop("config_path"), **options)
    with LiveProgress(console, cycles) as progress:
        report = run_lift_experiment(
            agent=agent,
            benchmark=benchmark_from_options(benchmark, options, config),
            engine=engine,
            seeds=seed_list,
            cycles=cycles,
            test_limit=test_limit,
            out_dir=Path(out_dir),
            config=config,
            progress=progress,
            control=not no_control,
            allow_small_test=allow_small_test,
        )
    console.print(markdown_table(report))
    console.print(f"written to {out_dir}/lift.json, lift.md, lift.png")
