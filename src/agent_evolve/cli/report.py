"""`agent-evolve report [WORKSPACE] -o report.html`: one self-contained HTML report of a run."""

from __future__ import annotations

import click

from agent_evolve.cli.workspace import workspace_option_or_argument
from agent_evolve.report.build import build_report


@click.command("report")
@workspace_option_or_argument
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(dir_okay=False))
@click.option("--png", "png_dir", type=click.Path(file_okay=False), help="Also write the figures as PNG files here.")
def report_command(workspace: str, output: str, png_dir: str | None) -> None:
    """Write the run's report: score curves, lineage, diffs, skill bank, task matrix, tokens and cost."""
    path = build_report(workspace, output, png_dir)
    click.echo(f"report written to {path}" + (f"; figures in {png_dir}" if png_dir else ""))
