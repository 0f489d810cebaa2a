"""rollback: recorded in the journal, honoured by the next run; candidates only with --force."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from userview_fakes import PLAN, make_run

import agent_evolve as ae
from agent_evolve.cli.main import cli


def journal(workspace: Path) -> list[dict]:
    return [json.loads(line) for line in (workspace / "evolution" / "journal.jsonl").read_text().splitlines()]


def test_rollback_then_run_continues_from_the_rolled_back_version(run_copy: Path) -> None:
    result = CliRunner().invoke(cli, ["rollback", "evo-1", "-w", str(run_copy)])
    assert result.exit_code == 0, result.output
    assert (run_copy / "prompts" / "system.md").read_text() == "Answer k0.\n"
    assert journal(run_copy)[-1]["accepted_tag"] == "evo-1"

    make_run(run_copy, cycles=4, plan=[*PLAN, {"memory/notes.jsonl": '{"content": "a note"}\n'}])
    vc = ae.VersionControl(run_copy)
    assert vc.show_file_at("pre-evo-4", "prompts/system.md") == "Answer k0.\n"
    assert "skills/" not in vc.show_file_at("cand-4", ""), "cycle 4 started from evo-1, before any skill"
    record = ae.EvolutionHistory(run_copy).cycle_records()[-1]
    assert record["cycle"] == 4 and record["metadata"]["outcome"] == "rejected"
    evo_1 = next(e for e in journal(run_copy) if e["phase"] == "recorded" and e["cycle"] == 1)
    assert record["metadata"]["gate"]["incumbent_score"] == evo_1["accepted_score"] == 1 / 3
    assert record["metadata"]["accepted_tag"] == "evo-1"


def test_hand_edits_are_kept_before_a_rollback_or_a_resumed_run_resets_the_workspace(
    run_copy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Both reset the workspace to a version: an edit or a new file not yet in any version was silently lost."""
    vc = ae.VersionControl(run_copy)
    kept = lambda: vc._git("for-each-ref", "--format=%(refname)", "refs/kept/").split()  # noqa: E731
    (run_copy / "prompts" / "system.md").write_text("my edit\n")
    (run_copy / "prompts" / "mine.md").write_text("my notes\n")
    result = CliRunner().invoke(cli, ["rollback", "evo-1", "-w", str(run_copy)])
    assert result.exit_code == 0 and len(kept()) == 1 and kept()[0] in caplog.text, result.output
    assert vc._git("show", f"{kept()[0]}:prompts/system.md") == "my edit\n"
    assert vc._git("show", f"{kept()[0]}:prompts/mine.md") == "my notes\n"
    (run_copy / "prompts" / "system.md").write_text("another edit\n")
    make_run(run_copy, cycles=4)
    assert len(kept()) == 2 and {vc._git("show", f"{ref}:prompts/system.md") for ref in kept()} == {
        "my edit\n", "another edit\n"}


def test_rollback_refuses_a_candidate_that_was_never_accepted(run_copy: Path) -> None:
    result = CliRunner().invoke(cli, ["rollback", "cand-2", "-w", str(run_copy)])
    assert result.exit_code == 1 and "cand-2 was never accepted" in result.output
    assert (run_copy / "prompts" / "system.md").read_text() == "Answer k0 or k1.\n"

    result = CliRunner().invoke(cli, ["rollback", "cand-2", "--force", "-w", str(run_copy)])
    assert result.exit_code == 0, result.output
    assert (run_copy / "skills" / "useless" / "SKILL.md").exists()
    last = journal(run_copy)[-1]
    assert (last["cycle"], last["phase"], last["accepted_tag"], last["rolled_back_from"]) == (3, "finished", "cand-2", "evo-3")
    assert last["accepted_score"] == 1 / 3 and last.get("accepted_cycle", 2) == 2
    assert CliRunner().invoke(cli, ["show", "final", "skills", "-w", str(run_copy)]).output.split()[-1] == "useless/"


def test_rollback_to_the_baseline(run_copy: Path) -> None:
    result = CliRunner().invoke(cli, ["rollback", "baseline", "-w", str(run_copy)])
    assert result.exit_code == 0, result.output
    assert (run_copy / "prompts" / "system.md").read_text() == "Answer.\n"
    assert json.loads((run_copy / "evolution" / "metrics.json").read_text())["accepted_tag"] == "evo-0"


def test_rollback_takes_any_name_of_an_accepted_commit(run_copy: Path) -> None:
    vc = ae.VersionControl(run_copy)
    assert vc.resolve("cand-1") == vc.resolve("evo-1"), "the gate accepted cycle 1's candidate as it was"
    result = CliRunner().invoke(cli, ["rollback", "cand-1", "-w", str(run_copy)])
    assert result.exit_code == 0, result.output
    assert "accepted version: evo-1" in result.output
    assert journal(run_copy)[-1]["accepted_tag"] == "evo-1"
