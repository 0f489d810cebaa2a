"""`agent-evolve hard-subset`: Ratchet's hard subset, the tasks a baseline agent does not always solve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from agent_evolve.api import agent_from_workspace, resolve_benchmark
from agent_evolve.benchmarks.hard_subset import select_hard_subset, write_subset
from agent_evolve.cli.run import build_config, model_options
from agent_evolve.errors import AgentEvolveError
from agent_evolve.registry import is_seed_name, seed_path


@click.command("hard-subset")
@click.option("--agent", default="gsm8k", show_default=True, help="Seed workspace name or path (the baseline).")
@click.option("--benchmark", default="gsm8k", show_default=True)
@click.option("-k", "k", type=int, default=3, show_default=True, help="Probes per task.")
@click.option("--n-train", type=int, help="Hard train tasks to keep (default: all found).")
@click.option("--n-test", type=int, help="Hard test tasks to keep (default: all found).")
@click.option("--seed", type=int, default=0, show_default=True, help="Probe order.")
@click.option("--drop-never-solved", is_flag=True, help="Also drop tasks the baseline never solves.")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Subset JSON to write.")
@model_options
def hard_subset_command(
    agent: str, benchmark: str, k: int, n_train: int | None, n_test: int | None, seed: int,
    drop_never_solved: bool, out: str, **options: Any,
) -> None:
    """Probe the baseline k times per task and keep the tasks it does not always solve.

    Probes differ only when the agent samples: set `temperature` above 0 in the workspace's agent.config.
    Pass the file to a benchmark with `--subset`.
    """
    try:
        config = build_config(options.pop("config_path"), **options)
        workspace = seed_path(agent) if is_seed_name(agent) and not Path(agent).exists() else Path(agent)
        baseline, _ = agent_from_workspace(workspace, config)
        subset = select_hard_subset(
            baseline.solve, resolve_benchmark(benchmark), k=k, n_train=n_train, n_test=n_test, seed=seed,
            drop_never_solved=drop_never_solved, workers=config.concurrency,
        )
        write_subset(out, subset)
    except AgentEvolveError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(json.dumps({"train": len(subset["train"]), "test": len(subset["test"]), "written": out}))
