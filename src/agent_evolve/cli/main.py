"""The `agent-evolve` command line: run, eval, experiment, doctor."""

from __future__ import annotations

import logging

import click

from agent_evolve.cli.doctor import doctor
from agent_evolve.cli.experiment import experiment_command
from agent_evolve.cli.run import eval_command, run_command
from agent_evolve.cli.subset import hard_subset_command
from agent_evolve.cli.userview import USERVIEW_COMMANDS


@click.group()
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
@click.version_option(package_name="agent-evolve")
def cli(verbose: int) -> None:
    """Evolve an LLM agent's workspace (prompts, skills, memory) from graded evidence."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


cli.add_command(run_command)
cli.add_command(eval_command)
cli.add_command(doctor)
cli.add_command(experiment_command)
cli.add_command(hard_subset_command)
for _command in USERVIEW_COMMANDS:
    cli.add_command(_command)


def main() -> None:
    cli()
