"""The engine table: generated from registered plans and their results, it names the engine that lifts best across
every benchmark, and that engine is the default a run with the embedded model gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_evolve.api import EMBEDDED_DEFAULT_ENGINE, REMOTE_DEFAULT_ENGINE, default_engine
from agent_evolve.config import EvolveConfig
from agent_evolve.lift.claims import check, lift_files, table_row, with_table
from agent_evolve.lift.engine_table import ENGINE_MARKERS, best_engine, engine_table, registered_runs
from agent_evolve.lift.plan import ComparisonPlan
from agent_evolve.lift.registration import plan_record

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = REPO / "experiments"


def _register(root: Path, engine: str, benchmark: str, when: str, lift: float | None, plan_id: str = "") -> None:
    folder = root / f"lift-{engine}-{benchmark}-{when}"
    folder.mkdir(parents=True)
    plan_id = plan_id or f"{engine}{benchmark}{when}"
    (folder / "plan.json").write_text(json.dumps({"id": plan_id, "registered": when, "config": {},
                                                  "plan": {"engine": engine, "benchmark": benchmark},
                                                  "test": {"ids": ["s0"], "ids_hash": "h"}}))
    if lift is not None:
        headline = {"against": "matched", "n": 120, "mean_difference": lift, "ci_low": lift - 0.05,
                    "ci_high": lift + 0.05, "wins": 20, "losses": 10}
        (folder / "lift.json").write_text(json.dumps({"registration": {"plan_id": plan_id, "registered": True},
                                                      "evidence": {"headline": headline}}))


def test_the_best_engine_is_the_one_whose_worst_benchmark_lifts_most(tmp_path: Path) -> None:
    root = tmp_path / "experiments"
    _register(root, "big", "a", "1", 0.30)  # the larger mean, but it loses on b
    _register(root, "big", "b", "1", -0.02)
    _register(root, "even", "a", "1", 0.05)
    _register(root, "even", "b", "1", 0.04)
    assert best_engine(registered_runs(root)) == "even"
    table = engine_table(registered_runs(root))
    assert "Best across all 2 benchmarks (largest smallest lift): `even`." in table
    assert "[+0.050, 95% CI [+0.000, +0.100]](experiments/lift-even-a-1/lift.json) (20 won, 10 lost of 120)" in table
    assert not list(check(tmp_path / "README.md", table, lift_files(root), tmp_path)), "its quotes are its files'"


def test_an_engine_missing_a_benchmark_or_a_result_cannot_be_best(tmp_path: Path) -> None:
    root = tmp_path / "experiments"
    _register(root, "strong", "a", "1", 0.30)
    _register(root, "strong", "b", "1", None)  # registered, not finished
    _register(root, "weak", "a", "1", 0.01)
    assert best_engine(registered_runs(root)) is None
    assert "registered, no test result yet](experiments/lift-strong-b-1/plan.json)" in engine_table(registered_runs(root))
    _register(root, "weak", "b", "1", 0.02)
    assert best_engine(registered_runs(root)) == "weak"


def test_a_rerun_under_a_later_plan_replaces_the_earlier_and_a_foreign_result_is_ignored(tmp_path: Path) -> None:
    root = tmp_path / "experiments"
    _register(root, "x", "a", "2026-01-01", 0.20)
    _register(root, "x", "a", "2026-02-01", -0.10)
    assert "-0.100" in engine_table(registered_runs(root)) and "+0.200" not in engine_table(registered_runs(root))
    _register(root, "y", "a", "2026-03-01", None, plan_id="p1")
    (root / "lift-y-a-2026-03-01" / "lift.json").write_text(json.dumps(
        {"registration": {"plan_id": "another"}, "evidence": {"headline": {
            "mean_difference": 0.9, "ci_low": 0.8, "ci_high": 1.0, "wins": 90, "losses": 0, "n": 120}}}))
    assert [run.headline for run in registered_runs(root) if run.engine == "y"] == [None]


def test_the_readme_engine_table_is_generated_from_the_committed_plans() -> None:
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert with_table(text, engine_table(registered_runs(EXPERIMENTS)), str(readme), ENGINE_MARKERS) == text, (
        "README.md's engine table is out of date: run agent-evolve experiment table --engines --write README.md")


def test_the_embedded_default_engine_is_the_registered_runs_choice() -> None:
    assert default_engine("local/qwen2.5-coder-1.5b") == EMBEDDED_DEFAULT_ENGINE
    assert default_engine("openai/gpt-4.1-mini") == REMOTE_DEFAULT_ENGINE == "skillforge"
    best = best_engine(registered_runs(EXPERIMENTS))
    if best is None:
        pytest.skip("no engine has finished its registered runs on every benchmark yet (README engine table)")
    assert EMBEDDED_DEFAULT_ENGINE == best, f"the registered runs name {best!r}: make it the embedded default"


def test_a_run_still_scoring_its_seeds_has_no_headline_and_cannot_be_best(tmp_path: Path) -> None:
    root = tmp_path / "experiments"
    _register(root, "solo", "a", "1", 0.30)
    lift_path = root / "lift-solo-a-1" / "lift.json"
    report = json.loads(lift_path.read_text())
    report.update(plan={"seeds": [0, 1, 2], "arms": ["evolved", "control", "matched"]},
                  runs=[{"seed": 0}, {"seed": 1}], control=[{"seed": 0}, {"seed": 1}], matched=[{"seed": 0}])
    lift_path.write_text(json.dumps(report))
    assert best_engine(registered_runs(root)) is None
    table = engine_table(registered_runs(root))
    assert "[in progress: 1 of 3 seeds fully scored](experiments/lift-solo-a-1/lift.md)" in table
    assert "+0.300" not in table
    row = table_row("lift-solo-a-1/lift.json", report)
    assert "| 1 of 3 |" in row and "in progress" in row and "+0.300" not in row
    report.update(runs=[{"seed": s} for s in range(3)], control=[{"seed": s} for s in range(3)],
                  matched=[{"seed": s} for s in range(3)])
    lift_path.write_text(json.dumps(report))
    assert best_engine(registered_runs(root)) == "solo"


def test_a_comparison_folder_is_left_out_of_the_engine_table(tmp_path: Path) -> None:
    root = tmp_path / "experiments"
    _register(root, "solo", "a", "1", 0.10)
    folder = root / "compare-a"
    (folder / "x").mkdir(parents=True)
    record = plan_record(ComparisonPlan("agent", "a", ("x", "y")).to_dict(), EvolveConfig(), ["s0"], "split", "key")
    (folder / "plan.json").write_text(json.dumps(record))
    headline = {"against": "control", "n": 120, "mean_difference": 0.9, "ci_low": 0.8, "ci_high": 1.0, "wins": 90,
                "losses": 0}
    (folder / "x" / "lift.json").write_text(json.dumps({"registration": {"plan_id": record["id"], "registered": True},
                                                        "evidence": {"headline": headline}}))
    runs = registered_runs(root)
    assert [(run.engine, run.benchmark) for run in runs] == [("solo", "a")]
    assert best_engine(runs) == "solo" and "`x`" not in engine_table(runs) and "`y`" not in engine_table(runs)
