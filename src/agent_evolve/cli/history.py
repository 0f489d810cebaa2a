"""`agent-evolve history [WORKSPACE]`: one row per cycle (outcome, scores, what changed, tokens and cost)."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from agent_evolve.userview.run import CycleRow, load_run

_OUTCOME_STYLE = {"accepted": "green", "rejected": "red", "failed": "yellow", "out_of_budget": "yellow"}


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def history_table(rows: list[CycleRow]) -> Table:
    table = Table(title="evolution history")
    for column in ("cycle", "outcome", "score", "holdout", "batch", "version"):
        table.add_column(column, no_wrap=True)
    table.add_column("changed", overflow="fold", min_width=12)
    table.add_column("summary", overflow="fold", min_width=12)
    for column in ("tokens", "cost $"):
        table.add_column(column, no_wrap=True, justify="right")
    for row in rows:
        style = _OUTCOME_STYLE.get(row.outcome, "")
        table.add_row(
            str(row.cycle),
            f"[{style}]{row.outcome}[/]" if style else row.outcome,
            _score(row.score),
            _score(row.holdout_score),
            _score(row.batch_score),
            row.accepted_tag,
            "\n".join(row.changed_paths) or "-",
            row.summary,
            f"{row.tokens:,}",
            f"{row.cost:.4f}",
        )
    return table


@click.command("history")
@click.argument("workspace", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def history_command(workspace: str, as_json: bool) -> None:
    """One row per cycle of the run in WORKSPACE: outcome, scores, what changed, tokens and cost."""
    rows = load_run(workspace).rows
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in rows], indent=2))
        return
    Console().print(history_table(rows))
