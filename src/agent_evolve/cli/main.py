"""The `agent-evolve` command line (built-in commands and the engines' own). Exit status: 0 done, 1 a run error, 2 a
usage or configuration error, 130 Ctrl-C, 143 SIGTERM (both unwind, so the same command resumes); errors: one line."""

from __future__ import annotations

import logging
import os
import shlex
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any

import click

from agent_evolve.cli.doctor import doctor
from agent_evolve.cli.experiment import ablate_command, experiment_command
from agent_evolve.cli.run import eval_command, hard_subset_command, run_command
from agent_evolve.cli.userview import USERVIEW_COMMANDS
from agent_evolve.errors import AgentEvolveError, ConfigError, UnknownNameError
from agent_evolve.registry import engine_commands

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
INTERRUPT_GRACE_S = 2.0
_RESUMABLE = ("run",)  # commands whose interrupted work the same command line resumes


class _Commands(click.Group):
    """A group whose commands report an error as one line on stderr: a usage or configuration error (exit 2),
    any other AgentEvolveError (exit 1); Ctrl-C prints the command that resumes and exits 130."""

    argv: tuple[str, ...] = ()  # the command line, for the resume hint

    def main(self, args: Any = None, *rest: Any, **options: Any) -> Any:
        self.argv = tuple(sys.argv[1:] if args is None else args)
        return super().main(args, *rest, **options)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            command = exc.ctx.info_name if exc.ctx is not None and exc.ctx.parent is not None else ""
            _error(f"{exc.format_message()} (see agent-evolve {command + ' ' if command else ''}--help)")
            ctx.exit(EXIT_USAGE)
        except AgentEvolveError as exc:
            _error(str(exc))
            ctx.exit(EXIT_USAGE if isinstance(exc, (ConfigError, UnknownNameError)) else EXIT_ERROR)
        except KeyboardInterrupt:
            resumable = ctx.invoked_subcommand in _RESUMABLE
            again = f"; resume with: {shlex.join(['agent-evolve', *self.argv])}" if resumable else ""
            click.echo(f"agent-evolve: interrupted{again}", err=True)
            ctx.exit(EXIT_INTERRUPTED)


def _error(message: str) -> None:
    click.echo(f"agent-evolve: error: {' '.join(message.split())}", err=True)


@click.group(cls=_Commands)
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
@click.version_option(package_name="agent-evolve")
def cli(verbose: int) -> None:
    """Evolve an LLM agent's workspace (prompts, skills, memory) from graded evidence."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if os.getcwd() not in sys.path:  # as `python -m` finds them: your grader and agent modules in this folder,
        sys.path.append(os.getcwd())  # after every installed module


for _command in [*engine_commands(), run_command, eval_command, doctor, experiment_command, ablate_command,
                 hard_subset_command, *USERVIEW_COMMANDS]:
    cli.add_command(_command)  # engines' commands first: a built-in command of the same name wins


def _terminate(signum: int, _frame: FrameType | None) -> None:
    """Unwind like an interrupt (cleanup runs); the next SIGTERM takes the default action."""
    signal.signal(signum, signal.SIG_DFL)
    click.echo("agent-evolve: stopped by SIGTERM; run the same command again to resume", err=True)
    raise SystemExit(EXIT_TERMINATED)


def _leave_soon(grace_s: float) -> None:
    """Give worker threads (tasks waiting on a model call) `grace_s` seconds, then exit 130 without them."""
    deadline = time.monotonic() + grace_s
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)


def main() -> None:
    signal.signal(signal.SIGTERM, _terminate)
    try:
        cli()
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED:
            _leave_soon(INTERRUPT_GRACE_S)
        raise


if __name__ == "__main__":
    main()
