"""`agent-evolve diff A B` and `agent-evolve show VERSION [PATH]` over version labels, coloured on a terminal."""

from __future__ import annotations

import click
from rich.console import Console
from rich.syntax import Syntax

from agent_evolve.cli.workspace import workspace_option
from agent_evolve.userview.versions import layer_diff, show_at



def _print(text: str, lexer: str) -> None:
    console = Console()
    if console.is_terminal:
        console.print(Syntax(text, lexer, theme="ansi_dark", background_color="default", word_wrap=True))
    else:
        click.echo(text, nl=False)


@click.command("diff")
@click.argument("a")
@click.argument("b")
@workspace_option
@click.option("--all-files", is_flag=True, help="Every file, not only the evolvable layers.")
def diff_command(a: str, b: str, workspace: str, all_files: bool) -> None:
    """The diff of the evolvable layers between versions A and B (evo-N, cand-N, pre-evo-N, baseline, final)."""
    _print(layer_diff(workspace, a, b, all_files=all_files), "diff")


@click.command("show")
@click.argument("version")
@click.argument("path", default="")
@workspace_option
def show_command(version: str, path: str, workspace: str) -> None:
    """A file (or folder listing) as it is at VERSION; without PATH, the workspace's top folder."""
    _print(show_at(workspace, version, path), "markdown" if path.endswith(".md") else "text")
