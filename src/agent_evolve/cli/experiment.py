"""`agent-evolve experiment`: lift over seeds and test draws, one engine or several side by side (`verify`, `table`);
`agent-evolve ablate`: Ratchet's ablation arms, each a resumable lift experiment in `<out>/<arm>/`, in one table."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from agent_evolve.algorithms.ratchet.ablations import (FULL, arm_params, heldout_gain, markdown, parse_arms,
                                                       table_row, with_deltas)
from agent_evolve.algorithms.ratchet.bank import round_scores
from agent_evolve.algorithms.ratchet.settings import ratchet_run_options
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.cli.progress import LiveProgress
from agent_evolve.cli.run import benchmark_from_options, build_config, engine_options, model_options
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.errors import ConfigError
from agent_evolve.experiment import (comparison_markdown, markdown_table, run_comparison_experiment,
                                     run_lift_experiment)
from agent_evolve.lift import DEFAULT_DRAWS
from agent_evolve.lift.claims import END, START, results_table, with_table
from agent_evolve.lift.engine_table import ENGINE_MARKERS, engine_table, registered_runs
from agent_evolve.lift.registration import verify_folder


@click.group("experiment", invoke_without_command=True)
@click.option("--agent", default="gsm8k", show_default=True, help="Seed workspace name or path.")
@click.option("--benchmark", default="gsm8k", show_default=True)
@click.option("--engine", help="The engine under test (default skillforge).")
@click.option("--engines", help="Comma-separated engines compared side by side on the same seeds, splits and budget.")
@click.option("--seeds", default="0,1,2", show_default=True, help="Comma-separated run seeds.")
@click.option("--cycles", type=int, default=2, show_default=True)
@click.option("--test-limit", type=int, default=120, show_default=True, help="Test tasks scored before and after.")
@click.option("--test-reserve", type=int,
              help="Score N test tasks that no earlier plan in the test-view ledger has scored (instead of the first "
                   "--test-limit).")
@click.option("--draws", type=int, default=DEFAULT_DRAWS, show_default=True,
              help="Independent test draws of the baseline and of every arm (own sampling seed and reply cache).")
@click.option("--allow-small-test", is_flag=True, help="Accept a test split under 120 tasks (its lift is noise).")
@click.option("--no-control", is_flag=True, help="Skip the no-evolution control arm.")
@click.option("--no-matched", is_flag=True, help="Skip the compute-matched control (baseline voting at the arm's "
                                                  "tokens per task).")
@click.option("--register-only", is_flag=True,
              help="Write plan.json (the plan id printed) and stop: commit it, then run the same command.")
@click.option("--batch-size", type=int)
@click.option("--holdout-limit", type=int)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="experiments/lift", show_default=True)
@engine_options
@model_options
@click.pass_context
def experiment_command(
    ctx: click.Context, agent: str, benchmark: str, engine: str | None, engines: str | None, seeds: str, cycles: int,
    test_limit: int, test_reserve: int | None, draws: int, allow_small_test: bool, no_control: bool,
    no_matched: bool, register_only: bool, out_dir: str, **options: Any
) -> None:
    """Register the plan (plan.json, its id printed), then evolve one fresh workspace per seed (with a no-edit and
    a compute-matched control) and compare its test score with the seed workspace's task by task, in every test
    draw; with --engines, every engine on the same seeds against one shared baseline, in one table. Run it again
    after an interruption to continue."""
    if ctx.invoked_subcommand is not None:
        return
    if engine and engines:
        raise ConfigError("give --engine (one engine) or --engines (several side by side), not both")
    if register_only and engines:
        raise ConfigError("--register-only registers one engine's plan; give --engine")
    console = Console()
    config = build_config(options.pop("config_path"), **options)
    common: dict[str, Any] = dict(
        agent=agent, benchmark=benchmark_from_options(benchmark, options, config), seeds=parse_ints(seeds, "--seeds"),
        cycles=cycles, test_limit=test_limit, out_dir=Path(out_dir), config=config, control=not no_control,
        allow_small_test=allow_small_test, draws=draws, test_reserve=test_reserve)
    with LiveProgress(console, cycles) as progress:
        if engines:
            names = [e.strip() for e in engines.split(",") if e.strip()]
            report = run_comparison_experiment(engines=names, progress=progress, **common)
        else:
            report = run_lift_experiment(engine=engine or "skillforge", progress=progress, matched=not no_matched,
                                         register_only=register_only, **common)
    plan_id = (report.get("registration") or {}).get("plan_id", "")
    if register_only:
        console.print(f"plan {plan_id} registered in {out_dir}/plan.json; commit it, then run the same command "
                      "without --register-only")
        return
    name = "comparison" if engines else "lift"
    console.print(comparison_markdown(report) if engines else markdown_table(report))
    console.print(f"plan {plan_id}; written to {out_dir}/{name}.json, {name}.md, {name}.png")


@experiment_command.command("verify")
@click.argument("out_dir", type=click.Path(file_okay=False))
def verify_command(out_dir: str) -> None:
    """Check the hash chain of OUT's test-view ledger (and of the per-user store of its test split); exits
    non-zero naming the first row that was rewritten, removed or reordered."""
    problems, checked = verify_folder(Path(out_dir))
    for line in checked:
        click.echo(line)
    for line in problems:
        click.echo(line, err=True)
    if problems:
        sys.exit(1)


@experiment_command.command("table")
@click.option("--root", type=click.Path(file_okay=False, exists=True), default="experiments", show_default=True,
              help="The folder whose <experiment>/lift.json files the table lists.")
@click.option("--write", "target", type=click.Path(dir_okay=False, exists=True),
              help="Rewrite the table between its markers in this file (else print it).")
@click.option("--engines", is_flag=True,
              help="The engine table instead: each engine's registered lift per benchmark, and the best across all.")
def table_command(root: str, target: str | None, engines: bool) -> None:
    """The results table of every lift.json under ROOT (mean lift, CI, plan, draws, headline), or with --engines
    the engine table of its registered plans, generated so that no quoted number can drift from its file."""
    table = engine_table(registered_runs(Path(root))) if engines else results_table(Path(root))
    if target is None:
        click.echo(table)
        return
    path = Path(target)
    markers = ENGINE_MARKERS if engines else (START, END)
    try:
        path.write_text(with_table(path.read_text(encoding="utf-8"), table, str(path), markers), encoding="utf-8")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    click.echo(f"{'engine' if engines else 'results'} table written into {path}")


def parse_ints(text: str, option: str) -> list[int]:
    """Comma-separated integers, or a ConfigError naming the option."""
    try:
        return [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ConfigError(f"{option} {text!r}: expected comma-separated integers, e.g. 0,1,2") from None


def run_ablation(
    *, agent: str, benchmark: str | BenchmarkAdapter, arms: list[str], seeds: list[int], cycles: int,
    test_limit: int, out_dir: Path, config: EvolveConfig, allow_small_test: bool = False,
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
                                     control=False, allow_small_test=allow_small_test)  # A1: the no-skill control
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
