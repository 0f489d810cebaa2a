"""`agent-evolve export` (a workspace's accepted version in a host's layout) and `agent-evolve import-skills`."""

from __future__ import annotations

from pathlib import Path

import click

from agent_evolve.export.exporter import ExportResult, export_workspace
from agent_evolve.export.hosts import HOSTS
from agent_evolve.export.importer import import_skills


def _workspace_and_folder(workspace: str | None, paths: tuple[str, ...], workspace_first: bool) -> tuple[str, str]:
    """(workspace, folder) from `-w W FOLDER` or the older positional pair; anything else is a usage error."""
    if workspace is not None and len(paths) == 1:
        return workspace, paths[0]
    if workspace is None and len(paths) == 2:
        return (paths[0], paths[1]) if workspace_first else (paths[1], paths[0])
    raise click.UsageError("name the workspace with -w WORKSPACE and give one DIRECTORY")


_WORKSPACE = click.option("-w", "--workspace", type=click.Path(exists=True, file_okay=False),
                          help="The run's workspace.")


@click.command("export")
@_WORKSPACE
@click.argument("paths", nargs=-1, metavar="DIRECTORY")
@click.option("--to", "host", required=True, type=click.Choice(list(HOSTS)), help="The host whose layout to write.")
@click.option("--with-prompt", is_flag=True,
              help="Also write the evolved prompt, program prompt, fragments, answer settings and memories as a "
                   "CLAUDE.md / AGENTS.md section.")
@click.option("--allow-partial", is_flag=True,
              help="Export even when evolved files have no place in the export (they are listed as a warning).")
def export_command(workspace: str | None, paths: tuple[str, ...], host: str, with_prompt: bool,
                   allow_partial: bool) -> None:
    """Write the workspace's accepted version into DIRECTORY where HOST finds it: skills as strictly valid Agent
    Skills, and with --with-prompt its other evolved instructions. Exits 1 naming any evolved file it would drop,
    unless --allow-partial."""
    workspace, directory = _workspace_and_folder(workspace, paths, workspace_first=True)
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
@_WORKSPACE
@click.argument("paths", nargs=-1, metavar="DIRECTORY")
def import_skills_command(workspace: str | None, paths: tuple[str, ...]) -> None:
    """Import the Agent Skills found in DIRECTORY (any host's layout) into the workspace."""
    workspace, directory = _workspace_and_folder(workspace, paths, workspace_first=False)
    if not Path(workspace).is_dir() or not Path(directory).is_dir():
        raise click.UsageError(f"{directory} and {workspace} must both be folders")
    names = import_skills(directory, workspace)
    click.echo(f"imported {len(names)} skills: {', '.join(names)}")
