"""The `agent-evolve` command line: run, eval, experiment, ablate, hard-subset, doctor.

Exit status: 0 done, 1 an error of the run (a missing key, model, Docker or data, a refused credential, a bad
workspace), 2 a usage or configuration error, 143 stopped by SIGTERM. Errors are one line on stderr.

SIGTERM (`kill`, a container or service stop) stops a command the way Ctrl-C does: the task running in the
main thread is interrupted, task environments (folders, containers) are closed and the workspace lock is
released; tasks on worker threads finish their current model call first. A second SIGTERM kills at once. A
stopped run resumes when the same command is run again.
"""

from __future__ import annotations

import logging
import signal
from types import FrameType
from typing import Any

import click

from agent_evolve.cli.ablate import ablate_command
from agent_evolve.cli.doctor import doctor
from agent_evolve.cli.experiment import experiment_command
from agent_evolve.cli.ratchet import RATCHET_COMMANDS
from agent_evolve.cli.run import eval_command, run_command
from agent_evolve.cli.subset import hard_subset_command
from agent_evolve.cli.userview import USERVIEW_COMMANDS
from agent_evolve.errors import AgentEvolveError, ConfigError

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_TERMINATED = 128 + signal.SIGTERM


class _Commands(click.Group):
    """A group whose commands report an AgentEvolveError as one line on stderr and a non-zero exit status."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except AgentEvolveError as exc:
            click.echo(f"agent-evolve: error: {' '.join(str(exc).split())}", err=True)
            ctx.exit(EXIT_USAGE if isinstance(exc, ConfigError) else EXIT_ERROR)


@click.group(cls=_Commands)
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
cli.add_command(ablate_command)
cli.add_command(hard_subset_command)
for _command in [*USERVIEW_COMMANDS, *RATCHET_COMMANDS]:
    cli.add_command(_command)


def _terminate(signum: int, _frame: FrameType | None) -> None:
    """Unwind like an interrupt (cleanup runs); the next SIGTERM takes the default action."""
    signal.signal(signum, signal.SIG_DFL)
    click.echo("agent-evolve: stopped by SIGTERM; run the same command again to resume", err=True)
    raise SystemExit(EXIT_TERMINATED)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    cli()


if __name__ == "__main__":
    main()
