"""`agent-evolve rollback VERSION`: make an earlier accepted version the accepted one; the next run continues from it."""

from __future__ import annotations

import click

from agent_evolve.cli.workspace import workspace_option
from agent_evolve.userview.rollback import rollback


@click.command("rollback")
@click.argument("version")
@workspace_option
@click.option("--force", is_flag=True, help="Also accept a version the gate never accepted (a candidate).")
def rollback_command(version: str, workspace: str, force: bool) -> None:
    """Make VERSION (evo-N, baseline, or with --force cand-N) the accepted version of the run in WORKSPACE."""
    done = rollback(workspace, version, force=force)
    click.echo(
        f"accepted version: {done.accepted} (holdout score {done.score:.3f}), was {done.previous}; "
        f"the next `agent-evolve run` continues from it at cycle {done.cycle + 1}"
    )
