"""`agent-evolve export WORKSPACE --to HOST DIR` and `agent-evolve import-skills DIR WORKSPACE`."""

from __future__ import annotations

import click

from agent_evolve.export.exporter import export_workspace
from agent_evolve.export.hosts import HOSTS
from agent_evolve.export.importer import import_skills


@click.command("export")
@click.argument("workspace", type=click.Path(exists=True, file_okay=False))
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--to", "host", required=True, type=click.Choice(list(HOSTS)), help="The host whose layout to write.")
@click.option("--with-prompt", is_flag=True, help="Also write the system prompt and memories as a CLAUDE.md / AGENTS.md section.")
def export_command(workspace: str, directory: str, host: str, with_prompt: bool) -> None:
    """Write WORKSPACE's skills into DIRECTORY as strictly valid Agent Skills, where HOST discovers them."""
    result = export_workspace(workspace, host, directory, with_prompt=with_prompt)
    click.echo(f"exported {len(result.skills)} skills to {directory} for {host}")
    if result.instructions:
        click.echo(f"instructions section written to {result.instructions}")


@click.command("import-skills")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.argument("workspace", type=click.Path(exists=True, file_okay=False))
def import_skills_command(directory: str, workspace: str) -> None:
    """Import the Agent Skills found in DIRECTORY (any host's layout) into WORKSPACE."""
    names = import_skills(directory, workspace)
    click.echo(f"imported {len(names)} skills: {', '.join(names)}")
