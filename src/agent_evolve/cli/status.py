"""`agent-evolve status [WORKSPACE]`: where a running or stopped run is; read-only, safe while the run writes."""

from __future__ import annotations

import json

import click

from agent_evolve.cli.workspace import workspace_option_or_argument
from agent_evolve.userview.status import RunStatus, run_status


def _state(status: RunStatus) -> str:
    if status.live:
        return "running"
    return f"finished ({status.ended})" if status.finished else "not running"


@click.command("status")
@workspace_option_or_argument
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status_command(workspace: str, as_json: bool) -> None:
    """Cycle, phase, tasks done, accepted version and spending of the run in WORKSPACE."""
    status = run_status(workspace)
    if as_json:
        click.echo(json.dumps(status.to_dict(), indent=2))
        return
    score = "-" if status.accepted_score is None else f"{status.accepted_score:.3f}"
    click.echo(
        f"{_state(status)} | cycle {status.cycle}{'' if status.finished else f' | {status.phase}'}"
        f" | {status.cycles_recorded} cycles recorded | {status.tasks_done} train tasks done"
        f" | accepted {status.accepted_tag} ({score}) | {status.tokens:,} tokens | ${status.cost:.4f}"
    )
