"""The command line end to end on a model-free agent: run, eval, experiment, hard-subset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import agent_evolve as ae
from agent_evolve.cli.main import cli
from agent_evolve.registry import ENGINE_REGISTRY

MANIFEST = """name: last-word
version: 0.1.0
contract_version: "1.0"
agent: {type: custom, entrypoint: cli_fakes.LastWordAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setitem(ENGINE_REGISTRY, "shout", "cli_fakes.ShoutEngine")
    workspace = tmp_path / "agent"
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("quiet\n")
    (workspace / "manifest.yaml").write_text(MANIFEST)
    tasks = tmp_path / "tasks.jsonl"
    rows = [{"id": f"q{i}", "input": f"say word{i}", "answer": f"WORD{i}"} for i in range(30)]
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return workspace, tasks


def test_run_evolves_and_prints_the_summary(setup: tuple[Path, Path]) -> None:
    workspace, tasks = setup
    result = CliRunner().invoke(
        cli, ["run", "--agent", str(workspace), "--benchmark", f"jsonl:{tasks}", "--engine", "shout", "--cycles", "1",
              "--batch-size", "4", "--holdout-limit", "5"],
    )
    assert result.exit_code == 0, result.output
    assert "baseline holdout score" in result.output and "0.000" in result.output
    assert "final holdout score" in result.output and "1.000 (evo-1)" in result.output
    assert ae.VersionControl(workspace).list_tags() == ["evo-0", "evo-1"]


def test_eval_scores_a_split_and_writes_json(setup: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, tasks = setup
    out = tmp_path / "eval.json"
    result = CliRunner().invoke(
        cli, ["eval", "--workspace", str(workspace), "--benchmark", f"jsonl:{tasks}", "--split", "test", "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["score"] == 0.0 and len(report["tasks"]) == 6


def test_eval_output_in_a_new_folder_is_written_and_one_that_cannot_be_is_refused_before_scoring(
    setup: tuple[Path, Path], tmp_path: Path
) -> None:
    """A missing folder was a traceback after every task was scored, the scores lost."""
    workspace, tasks = setup
    args = ["eval", "-w", str(workspace), "--benchmark", f"jsonl:{tasks}", "--output"]
    result = CliRunner().invoke(cli, [*args, str(tmp_path / "results" / "eval.json")])
    assert result.exit_code == 0 and json.loads((tmp_path / "results" / "eval.json").read_text())["tasks"]
    refused = CliRunner().invoke(cli, [*args, str(tasks / "eval.json")])
    assert refused.exit_code == 2 and str(tasks) in refused.stderr and "test:" not in refused.stdout


def test_experiment_writes_json_markdown_and_plot(setup: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, tasks = setup
    out = tmp_path / "lift"
    result = CliRunner().invoke(
        cli, ["experiment", "--agent", str(workspace), "--benchmark", f"jsonl:{tasks}", "--engine", "shout",
              "--seeds", "0,1", "--cycles", "1", "--batch-size", "4", "--holdout-limit", "5", "--out", str(out),
              "--allow-small-test"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "lift.json").read_text())
    assert [r["seed"] for r in report["runs"]] == [0, 1]
    assert all(r["baseline_test"] == 0.0 and r["evolved_test"] == 1.0 for r in report["runs"])
    assert report["mean_lift"] == 1.0
    assert "| 0 | 0.000 | 1.000 | +1.000 |" in (out / "lift.md").read_text()
    assert (out / "lift.png").stat().st_size > 1000
    assert (workspace / "prompts" / "system.md").read_text() == "quiet\n", "the source workspace is untouched"


def test_hard_subset_keeps_unsolved_tasks_and_run_accepts_the_file(setup: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, tasks = setup
    out = tmp_path / "subset.json"
    result = CliRunner().invoke(
        cli, ["hard-subset", "--agent", str(workspace), "--benchmark", f"jsonl:{tasks}", "-k", "2", "--n-train", "5",
              "--n-test", "2", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    subset = json.loads(out.read_text())
    assert len(subset["train"]) == 5 and len(subset["test"]) == 2
    evaluated = CliRunner().invoke(
        cli, ["eval", "--workspace", str(workspace), "--benchmark", f"jsonl:{tasks}", "--subset", str(out),
              "--output", str(tmp_path / "e.json")],
    )
    assert evaluated.exit_code == 0, evaluated.output
    assert [t["task_id"] for t in json.loads((tmp_path / "e.json").read_text())["tasks"]] == subset["test"]


def test_bad_input_is_a_clean_error_not_a_traceback(setup: tuple[Path, Path], tmp_path: Path) -> None:
    workspace, _ = setup
    (workspace / "manifest.yaml").write_text("name: x\n")
    result = CliRunner().invoke(cli, ["eval", "--workspace", str(workspace), "--benchmark", "gsm8k"])
    assert result.exit_code == 1 and "manifest.yaml" in result.output and "Traceback" not in result.output


def test_experiment_scores_an_unchanged_workspace_anew_and_finds_no_lift(setup: tuple[Path, Path], tmp_path: Path,
                                                                          monkeypatch) -> None:
    workspace, tasks = setup
    monkeypatch.setitem(ENGINE_REGISTRY, "noop", "cli_fakes.NoopEngine")
    result = CliRunner().invoke(
        cli, ["experiment", "--agent", str(workspace), "--benchmark", f"jsonl:{tasks}", "--engine", "noop",
              "--seeds", "0", "--cycles", "1", "--batch-size", "4", "--holdout-limit", "5", "--out", str(tmp_path / "x"),
              "--allow-small-test"],
    )
    assert result.exit_code == 0, result.output
    stores = sorted(p.name for p in (tmp_path / "x" / "scores" / "draw-0").glob("*.jsonl"))
    assert "evolved-seed-0.jsonl" in stores and "baseline.jsonl" in stores, "each arm is scored, never read from a file"
    row = json.loads((tmp_path / "x" / "lift.json").read_text())["runs"][0]
    assert row["lift"] == 0.0 and row["identical_to_baseline"]
