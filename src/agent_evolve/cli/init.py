"""`agent-evolve init DIR --template NAME`: a new workspace that validates, with a README of its own layout."""

from __future__ import annotations

import click

from agent_evolve.userview.init import TEMPLATES, init_workspace


@click.command("init")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--template", required=True, type=click.Choice(TEMPLATES), help="The seed workspace to start from.")
def init_command(directory: str, template: str) -> None:
    """Create a new workspace in DIRECTORY from a built-in template."""
    path = init_workspace(directory, template)
    click.echo(f"created {path} from the {template} template; see {path / 'README.md'}")
