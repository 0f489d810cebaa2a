"""The run's closing summary says where to see what evolution changed, and that the command it names works."""

from __future__ import annotations

import shlex
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from agent_evolve.cli.main import cli
from agent_evolve.cli.progress import learned_note, summary_table
from agent_evolve.engine.records import RunRecords, write_json_atomic
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


def test_a_model_writing_engine_shows_how_often_its_edits_were_valid_and_won(tmp_path: Path) -> None:
    edits = {"proposed": 5, "valid": 4, "gated": 3, "accepted": 1}
    details = {"accepted": 1, "rejected": 2, "accepted_tag": "evo-2", "workspace": str(tmp_path), "edits": edits}
    line = next(l for l in rendered(EvolutionResult(3, 0.5, details=details)).splitlines() if "engine edits" in l)
    assert "4 of 5 proposed edits valid (80%); 1 of 3 gated candidates accepted (33%)" in line
    assert "engine edits" not in rendered(EvolutionResult(1, 0.5, details={**details, "edits": {}}))


def versions(workspace: Path, changes: dict[str, str]) -> None:
    """A baseline (evo-0) and an accepted evo-1 that writes `changes`, with the gate's tables: 10 of 16 holdout
    tasks solved, then 11 of 16."""
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("Solve it.\n")
    vc = VersionControl(workspace)
    vc.init()
    vc.commit("start", tag="evo-0")
    for path, text in changes.items():
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text(text)
    vc.commit("cycle 1", tag="evo-1")
    records = RunRecords(workspace)
    for tag, solved in (("evo-0", 10), ("evo-1", 11)):
        write_json_atomic(records.holdout_table(tag), {f"h{i}": [float(i < solved)] for i in range(16)})


def test_the_learned_line_names_the_examples_notes_and_holdout_evidence(tmp_path: Path) -> None:
    examples = "".join(f'{{"task_id": "gsm8k/{i}", "input": "q{i}", "solution": "Answer: {i}"}}\n' for i in range(6))
    notes = "# Notes from mistakes\n\n## Mistake: units\nConvert first.\n"
    versions(tmp_path, {"memory/experience.jsonl": examples, "prompts/experience.yaml": "k: 3\n",
                        "prompts/fragments/notes.md": notes})
    details = {"accepted": 1, "accepted_tag": "evo-1", "workspace": str(tmp_path), "holdout_size": 16,
               "baseline_score": 0.625}
    assert learned_note(EvolutionResult(1, 0.6875, details=details)) == (
        "learned: 6 worked examples from verified train solves (gsm8k/0, gsm8k/1, gsm8k/2, gsm8k/3, ...), "
        "the 3 nearest shown per task; 1 note from train failures; holdout 10/16 -> 11/16 (evo-1)")


def test_a_built_in_switch_is_said_to_be_nothing_from_the_data_and_no_acceptance_no_line(tmp_path: Path) -> None:
    versions(tmp_path, {"prompts/program.md": "Write Python.\n", "prompts/check.yaml": "cross_check: 2\n"})
    details = {"accepted": 1, "accepted_tag": "evo-1", "workspace": str(tmp_path), "holdout_size": 16,
               "baseline_score": 0.625}
    assert learned_note(EvolutionResult(1, 0.6875, details=details)) == (
        "learned: nothing from the data (a built-in switch: prompts/check.yaml, prompts/program.md); "
        "holdout 10/16 -> 11/16 (evo-1)")
    assert learned_note(EvolutionResult(1, 0.625, details={**details, "accepted": 0})) is None


def test_an_engine_edit_is_named_as_a_change_not_claimed_to_be_a_built_in_switch(tmp_path: Path) -> None:
    versions(tmp_path, {"prompts/system.md": "Solve it. Check the units.\n"})
    details = {"accepted": 1, "accepted_tag": "evo-1", "workspace": str(tmp_path), "holdout_size": 16}
    assert learned_note(EvolutionResult(1, 0.6875, details=details)) == (
        "learned: changed prompts/system.md; holdout 10/16 -> 11/16 (evo-1)")


def test_tasks_that_failed_to_run_are_not_counted_and_without_tables_the_scores_are_shown(tmp_path: Path) -> None:
    versions(tmp_path, {"prompts/program.md": "Write Python.\n"})
    records = RunRecords(tmp_path)
    write_json_atomic(records.holdout_table("evo-0"), {f"h{i}": [float(i < 8)] for i in range(14)})
    details = {"accepted": 1, "accepted_tag": "evo-1", "workspace": str(tmp_path), "baseline_score": 8 / 14}
    assert learned_note(EvolutionResult(1, 0.6875, details=details)).endswith("holdout 8/14 -> 11/16 (evo-1)")
    records.holdout_table("evo-1").unlink()
    assert learned_note(EvolutionResult(1, 0.6875, details=details)).endswith("holdout 0.571 -> 0.688 (evo-1)")
