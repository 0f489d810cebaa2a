"""The API page's promise end to end: a user's agent, benchmark and engine evolve for 3 gated cycles."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import agent_evolve as ae
from kernel_fakes import holdout_ids

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_evolution.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("custom_evolution", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_three_cycles_keep_the_good_edit_and_roll_back_the_bad(tmp_path: Path) -> None:
    example = _load_example()
    workspace = tmp_path / "agent"
    result = example.main(str(workspace))

    history = ae.EvolutionHistory(workspace)
    curve = history.get_score_curve()
    assert [cycle for cycle, _ in curve] == [1, 2, 3]
    assert result.cycles_completed == 3
    assert result.details["accepted"] == 1 and result.details["rejected"] == 2

    tags = ae.VersionControl(workspace).list_tags()
    assert "evo-0" in tags and "evo-1" in tags
    assert "evo-2" not in tags and "evo-3" not in tags
    # The harmful prompt was rolled back: the accepted prompt is on disk and the candidate is kept in history.
    assert "add one" in (workspace / "prompts" / "system.md").read_text()
    assert "echo" in history.read_file_at("cand-2", "prompts/system.md")
    assert result.final_score == 1.0
    assert result.details["baseline_score"] == 0.0

    records = history.cycle_records()
    assert [r["metadata"]["outcome"] for r in records] == ["accepted", "rejected", "rejected"]
    assert records[1]["metadata"]["gate"]["candidate_score"] < records[1]["metadata"]["gate"]["incumbent_score"]


def test_engine_sees_new_train_tasks_each_cycle_never_holdout(tmp_path: Path) -> None:
    example = _load_example()
    workspace = tmp_path / "agent"
    engine = example.ScriptedEngine()
    config = ae.EvolveConfig(batch_size=5, holdout_ratio=0.25)
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("start\n")
    ae.Evolver(example.AdderAgent(workspace), example.AdderBenchmark(), config, engine).run(cycles=3)

    batches = engine.seen_task_ids
    assert len(batches) == 3
    flat = [task_id for batch in batches for task_id in batch]
    assert len(set(flat)) == 15, "each cycle must bring train tasks not seen before"
    holdout = set(holdout_ids(workspace))
    assert holdout and not holdout & set(flat)


def test_example_script_runs_as_a_program(tmp_path: Path) -> None:
    proc = subprocess.run(
        ["python", str(EXAMPLE), str(tmp_path / "agent")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "score curve: [(1, 0.0), (2, 1.0), (3, 1.0)]" in proc.stdout, "each cycle's average batch score"
