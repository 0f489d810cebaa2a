"""`-w/--workspace`: how every command names the run's workspace (default: the current folder); `history`, `status`
and `report` also take it positionally, and naming two different ones is a usage error."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

_EXISTING = click.Path(exists=True, file_okay=False)

workspace_option = click.option(
    "-w", "--workspace", default=".", show_default=True, type=_EXISTING, help="The run's workspace.",
)


def workspace_option_or_argument(command: Callable[..., Any]) -> Callable[..., Any]:
    """`-w/--workspace`, or the same as an optional first argument; the command receives `workspace`."""

    @functools.wraps(command)
    def merged(*args: Any, workspace: str | None, workspace_argument: str | None, **kwargs: Any) -> Any:
        if workspace and workspace_argument and Path(workspace).resolve() != Path(workspace_argument).resolve():
            raise click.UsageError(f"two workspaces named: {workspace_argument} and -w {workspace}")
        return command(*args, workspace=workspace or workspace_argument or ".", **kwargs)

    merged = click.option("-w", "--workspace", type=_EXISTING, help="The run's workspace (default: .).")(merged)
    return click.argument("workspace_argument", required=False, metavar="[WORKSPACE]", type=_EXISTING)(merged)
