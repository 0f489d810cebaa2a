"""`agent-evolve export WORKSPACE --to HOST DIR` and `agent-evolve import-skills DIR WORKSPACE`."""

from __future__ import annotations

import click

from agent_evolve.export.exporter import ExportResult, export_workspace
from agent_evolve.export.hosts import HOSTS
from agent_evolve.export.importer import import_skills


@click.command("export")
@click.argument("workspace", type=click.Path(exists=True, file_okay=False))
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--to", "host", required=True, type=click.Choice(list(HOSTS)), help="The host whose layout to write.")
@click.option("--with-prompt", is_flag=True,
              help="Also write the evolved prompt, program prompt, fragments, answer settings and memories as a "
                   "CLAUDE.md / AGENTS.md section.")
@click.option("--allow-partial", is_flag=True,
              help="Export even when evolved files have no place in the export (they are listed as a warning).")
def export_command(workspace: str, directory: str, host: str, with_prompt: bool, allow_partial: bool) -> None:
    """Write WORKSPACE's accepted version into DIRECTORY where HOST finds it: skills as strictly valid Agent Skills,
    and with --with-prompt its other evolved instructions. Exits 1 naming any evolved file it would drop, unless
    --allow-partial."""
    result = export_workspace(workspace, host, directory, with_prompt=with_prompt, allow_partial=allow_partial)
    report_export(result, directory, host)


def report_export(result: ExportResult, directory: str, host: str) -> None:
    """What was exported, from which version, and (on stderr) what was left out and why."""
    version = f" (accepted version {result.version})" if result.version else ""
    click.echo(f"exported {len(result.skills)} skills{version} to {directory} for {host}")
    if result.instructions:
        click.echo(f"instructions section written to {result.instructions}")
    carried = sorted(set(result.plan.carried))
    if carried:
        click.echo(f"evolved files carried: {', '.join(carried)}")
    for path, why in result.plan.dropped.items():
        click.echo(f"warning: evolved file not exported: {path} ({why})", err=True)
    for path, why in result.plan.ignored.items():
        click.echo(f"note: not exported: {path} ({why})", err=True)


@click.command("import-skills")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.argument("workspace", type=click.Path(exists=True, file_okay=False))
def import_skills_command(directory: str, workspace: str) -> None:
    """Import the Agent Skills found in DIRECTORY (any host's layout) into WORKSPACE."""
    names = import_skills(directory, workspace)
    click.echo(f"imported {len(names)} skills: {', '.join(names)}")
