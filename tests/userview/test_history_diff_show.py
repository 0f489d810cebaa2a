"""history, diff and show over a run made by the scripted engine."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_evolve.cli.main import cli
from agent_evolve.engine.records import RunRecords


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_history_rows_match_history_jsonl(finished_run: Path) -> None:
    rows = json.loads(invoke("history", str(finished_run), "--json"))
    records = [json.loads(line) for line in (finished_run / "evolution" / "history.jsonl").read_text().splitlines()]
    assert [r["cycle"] for r in rows] == [r["cycle"] for r in records] == [1, 2, 3]
    for row, record in zip(rows, records):
        meta = record["metadata"]
        assert row["outcome"] == meta["outcome"]
        assert row["score"] == record["score"]
        assert row["batch_score"] == meta["batch_score"]
        assert row["changed_paths"] == meta["changed_paths"]
        assert row["summary"] == record["summary"]
        assert row["accepted_tag"] == meta["accepted_tag"]
    assert [r["outcome"] for r in rows] == ["accepted", "rejected", "accepted"]
    assert rows[2]["changed_paths"] == ["prompts/system.md", "skills/third/SKILL.md"]


def test_history_table_names_every_cycle(finished_run: Path) -> None:
    result = CliRunner().invoke(cli, ["history", str(finished_run)], env={"COLUMNS": "250"})
    out = result.output
    assert "rejected" in out and "accepted" in out and "skills/third/SKILL.md" in out


def test_diff_equals_gits_diff_of_the_evolvable_layers(finished_run: Path) -> None:
    out = invoke("diff", "evo-1", "evo-3", "-w", str(finished_run))
    git = subprocess.run(
        ["git", "diff", "evo-1", "evo-3", "--", "prompts", "skills", "memory"],
        cwd=finished_run, capture_output=True, text=True, check=True,
    ).stdout
    assert out == git
    assert "+Answer k0 or k1." in out and "skills/third/SKILL.md" in out and "useless" not in out


def test_diff_of_baseline_and_final_spans_the_whole_run(finished_run: Path) -> None:
    out = invoke("diff", "baseline", "final", "-w", str(finished_run))
    assert "-Answer." in out and "+Answer k0 or k1." in out


def test_show_reads_a_file_at_a_version_and_lists_folders(finished_run: Path) -> None:
    assert invoke("show", "evo-1", "prompts/system.md", "-w", str(finished_run)) == "Answer k0.\n"
    assert invoke("show", "cand-2", "skills", "-w", str(finished_run)).split()[-1] == "useless/"
    assert "prompts/" in invoke("show", "final", "-w", str(finished_run))


def test_an_unknown_label_is_a_clear_error(finished_run: Path) -> None:
    result = CliRunner().invoke(cli, ["diff", "evo-1", "evo-9", "-w", str(finished_run)])
    assert result.exit_code == 1 and "version 'evo-9' does not exist" in result.output
    result = CliRunner().invoke(cli, ["show", "HEAD~1", "-w", str(finished_run)])
    assert result.exit_code == 1 and "not a version label" in result.output


def test_history_of_a_folder_that_never_ran_names_its_records(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["history", str(tmp_path)])
    assert result.exit_code == 1 and "no run records" in result.output


@pytest.mark.parametrize("file, line, damaged", [("history.jsonl", '{"cycle": "2", "metadata": {}}', "'cycle' is '2'"),
                                                 ("history.jsonl", '{"cycle": 4, "metadata": 3}', "'metadata' is 3"),
                                                 ("journal.jsonl", '{"cycle": null, "phase": "solved"}', "'cycle'"),
                                                 ("history.jsonl", '{"cycle": 4, "metadata": {"changed_paths": 3}}',
                                                  "'metadata.changed_paths' is 3"),
                                                 ("history.jsonl", '{"cycle": 4, "metadata": {"step_metadata": "x"}}',
                                                  "'metadata.step_metadata' is 'x'"),
                                                 ("history.jsonl", '{"cycle": 4, "metadata": {}, "observation_batch": 3}',
                                                  "'observation_batch' is 3")])
def test_a_record_with_a_field_of_the_wrong_type_is_an_error_naming_it(run_copy: Path, file: str, line: str,
                                                                       damaged: str) -> None:
    """Valid JSON but a damaged record was a traceback in status, history and report."""
    records = RunRecords(run_copy)
    path = records.history if file == "history.jsonl" else records.journal
    path.write_text(path.read_text() + line + "\n")
    for command in ("status", "history", "report"):
        result = CliRunner().invoke(cli, [command, "-w", str(run_copy)])
        assert result.exit_code == 1 and f"{file}: record" in result.output and damaged in result.output, result.output
