"""`agent-evolve history [WORKSPACE]`: one row per cycle (outcome, scores, what changed, tokens and cost)."""

from __future__ import annotations

import json

import click
from rich import box
from rich.console import Console
from rich.table import Table

from agent_evolve.cli.workspace import workspace_option_or_argument
from agent_evolve.userview.run import CycleRow, load_run

_OUTCOME_STYLE = {"accepted": "green", "rejected": "red", "failed": "yellow", "out_of_budget": "yellow"}


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def history_table(rows: list[CycleRow], *, wide: bool = False) -> Table:
    """Cycle, outcome, scores, version, tokens and cost in full at 80 columns; the changed files fold into what
    width is left. `wide` adds each cycle's summary."""
    table = Table(title="evolution history", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("cycle", "outcome", "holdout", "batch", "version"):
        table.add_column(column, no_wrap=True)
    for column in ("tokens", "cost $"):
        table.add_column(column, no_wrap=True, justify="right")
    table.add_column("changed", overflow="fold", min_width=10)
    if wide:
        table.add_column("summary", overflow="fold", min_width=12)
    for row in rows:
        style = _OUTCOME_STYLE.get(row.outcome, "")
        cells = [
            str(row.cycle),
            f"[{style}]{row.outcome}[/]" if style else row.outcome,
            _score(row.holdout_score),
            _score(row.batch_score),
            row.accepted_tag,
            f"{row.tokens:,}",
            f"{row.cost:.4f}",
            "\n".join(row.changed_paths) or "-",
        ]
        table.add_row(*cells, *([row.summary] if wide else []))
    return table


@click.command("history")
@workspace_option_or_argument
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON (every field, summaries included).")
@click.option("--wide", is_flag=True, help="Add each cycle's summary (wider than 80 columns).")
def history_command(workspace: str, as_json: bool, wide: bool) -> None:
    """One row per cycle of the run in WORKSPACE: outcome, scores, version, tokens, cost and what changed."""
    rows = load_run(workspace).rows
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in rows], indent=2))
        return
    console = Console()
    if wide:
        console.width = max(console.width, 160)
    console.print(history_table(rows, wide=wide))
