"""The run's closing summary says where to see what evolution changed, and that the command it names works."""

from __future__ import annotations

import shlex
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from agent_evolve.cli.main import cli
from agent_evolve.cli.progress import summary_table
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.types import EvolutionResult


def rendered(result: EvolutionResult) -> str:
    console = Console(width=400, record=True)
    console.print(summary_table(result, 12.0))
    return console.export_text()


def test_an_accepted_change_is_shown_with_the_diff_command_that_prints_it(tmp_path: Path) -> None:
    workspace = tmp_path / "my ws"
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("Solve it.\n")
    vc = VersionControl(workspace)
    vc.init()
    vc.commit("start", tag="evo-0")  # what `baseline` names
    (workspace / "prompts" / "system.md").write_text("Solve it. Check the units.\n")
    vc.commit("cycle 1", tag="evo-1")
    details = {"accepted": 1, "rejected": 1, "accepted_tag": "evo-1", "workspace": str(workspace)}
    text = rendered(EvolutionResult(2, 0.5, details=details))
    line = next(l for l in text.splitlines() if "what changed" in l)
    command = line.split("│")[2].strip()
    assert command == f"agent-evolve diff -w '{workspace}' baseline evo-1"
    shown = CliRunner().invoke(cli, shlex.split(command)[1:])
    assert shown.exit_code == 0, shown.output
    assert "+Solve it. Check the units." in shown.output


def test_nothing_accepted_says_so_and_points_at_the_history(tmp_path: Path) -> None:
    details = {"accepted": 0, "rejected": 2, "accepted_tag": "evo-0", "workspace": str(tmp_path)}
    line = next(l for l in rendered(EvolutionResult(2, 0.25, details=details)).splitlines() if "what changed" in l)
    assert "nothing was accepted" in line and f"agent-evolve history -w {tmp_path}" in line
