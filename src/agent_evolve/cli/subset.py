"""`agent-evolve hard-subset`: Ratchet's hard subset, the tasks a baseline agent does not always solve."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from agent_evolve.api import RunClients, agent_from_workspace
from agent_evolve.benchmarks.support.hard_subset import Solver, select_hard_subset, write_subset
from agent_evolve.cli.run import benchmark_from_options, build_config, model_options
from agent_evolve.config import EvolveConfig
from agent_evolve.llm.factory import apply_config_limits
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.registry import is_seed_name, seed_path

DEFAULT_PROBE_TEMPERATURE = 0.7


def probe_solvers(workspace: Path, config: EvolveConfig, k: int, seed: int, temperature: float) -> list[Solver]:
    """k baseline agents sharing one ledger, each with its own sampling seed; with k > 1 they sample at
    `temperature` unless the config sets agent_temperature, so the probes differ."""
    ledger = apply_config_limits(config, UsageLedger())
    if k > 1 and config.agent_temperature is None:
        config = dataclasses.replace(config, agent_temperature=temperature)
    solvers: list[Solver] = []
    for probe in range(k):
        agent, _ = agent_from_workspace(workspace, config, RunClients(config, ledger, seed=seed * k + probe))
        solvers.append(agent.solve)
    return solvers


@click.command("hard-subset")
@click.option("--agent", default="gsm8k", show_default=True, help="Seed workspace name or path (the baseline).")
@click.option("--benchmark", default="gsm8k", show_default=True)
@click.option("-k", "k", type=int, default=3, show_default=True, help="Probes per task.")
@click.option("--n-train", type=int, help="Hard train tasks to keep (default: all found).")
@click.option("--n-test", type=int, help="Hard test tasks to keep (default: all found).")
@click.option("--seed", type=int, default=0, show_default=True, help="Probe order and the probes' sampling seeds.")
@click.option("--probe-temperature", type=float, default=DEFAULT_PROBE_TEMPERATURE, show_default=True,
              help="Agent temperature of the probes when k > 1 (--agent-temperature overrides it).")
@click.option("--drop-never-solved", is_flag=True, help="Also drop tasks the baseline never solves.")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Subset JSON to write.")
@model_options
def hard_subset_command(
    agent: str, benchmark: str, k: int, n_train: int | None, n_test: int | None, seed: int,
    probe_temperature: float, drop_never_solved: bool, out: str, **options: Any,
) -> None:
    """Probe the baseline k times per task and keep the tasks it does not always solve.

    Each probe is its own agent with its own sampling seed, at --probe-temperature, so probes differ.
    Pass the file to any benchmark with `--subset`.
    """
    config = build_config(options.pop("config_path"), **options)
    workspace = seed_path(agent) if is_seed_name(agent) else Path(agent)
    solvers = probe_solvers(workspace, config, k, seed, probe_temperature)
    subset = select_hard_subset(
        solvers, benchmark_from_options(benchmark, {}, config), k=k, n_train=n_train, n_test=n_test, seed=seed,
        drop_never_solved=drop_never_solved, workers=config.concurrency,
    )
    write_subset(out, subset)
    click.echo(json.dumps({"train": len(subset["train"]), "test": len(subset["test"]), "written": out}))
