"""The lift protocol's pure parts: test-split checks, the summary's numbers, content keys, resumable scoring, cost."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lift_fakes import KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.errors import ConfigError
from agent_evolve.lift import ArmRun, LiftPlan, check_test_split, markdown_table, run_lift, summarize
from agent_evolve.lift import run as run_module
from agent_evolve.lift.opening import DrawScorer
from agent_evolve.lift.run import MeteredBenchmark, arm_cost
from agent_evolve.lift.scoring import score_tasks, store_cost, workspace_files, workspace_key
from agent_evolve.registry import ENGINE_REGISTRY
from agent_evolve.types import Trajectory

BASELINE = {f"s{i}": float(i < 5) for i in range(10)}  # 0.5


def arm(name: str, seed: int, solved: int, key: str = "k") -> ArmRun:
    return ArmRun(name, seed, f"ws-{name}-{seed}", test_key=key,
                  test_scores={f"s{i}": float(i < solved) for i in range(10)}, cost={"solves": 40, "seconds": 2.0})


def test_check_test_split_refuses_shared_ids_and_small_splits_unless_allowed() -> None:
    with pytest.raises(ConfigError, match="shares 1 task"):
        check_test_split(["a", "b"], ["b", "c"], 1, allow_small=False)
    with pytest.raises(ConfigError, match="2 task\\(s\\), fewer than 120"):
        check_test_split(["a", "b"], ["c"], 120, allow_small=False)
    check_test_split(["a", "b"], ["c"], 120, allow_small=True)


def test_summary_pairs_each_seed_with_the_baseline_and_pools_the_seeds() -> None:
    plan = LiftPlan("a", "b", "e", seeds=(0, 1), test_limit=10)
    runs = [arm("evolved", 0, 8), arm("control", 0, 5, key="base"), arm("evolved", 1, 6), arm("control", 1, 5, key="base")]
    report = summarize(plan, BASELINE, runs, baseline_key="base")
    assert [r["lift"] for r in report["runs"]] == pytest.approx([0.3, 0.1])
    assert [(r["wins"], r["losses"]) for r in report["runs"]] == [(3, 0), (1, 0)]
    evolved = report["arms"]["evolved"]
    assert evolved["mean_lift"] == pytest.approx(0.2)
    assert evolved["pooled"]["n"] == 10 and evolved["pooled"]["mean_difference"] == pytest.approx(0.2)
    assert evolved["pooled"]["wins"] == 3, "s5 to s7 are up on average over the seeds; the seeds share the tasks"
    assert evolved["pooled"]["p_value"] == pytest.approx(2 / 2**3)
    assert evolved["spread"]["min"] == pytest.approx(0.1) and evolved["spread"]["max"] == pytest.approx(0.3)
    assert evolved["lift_per_100_solves"] == pytest.approx(100 * 0.2 / 40)
    assert report["control_exact"] and report["arms"]["control"]["mean_lift"] == 0.0
    table = markdown_table(report)
    assert "| 0 | 0.500 | 0.800 | +0.300 |" in table and "**yes**" in table and "Mean lift over 2 seed(s): **+0.200**" in table


def test_seeds_that_end_alike_do_not_narrow_the_interval() -> None:
    plan = LiftPlan("a", "b", "e", seeds=(0, 1, 2), test_limit=10)
    report = summarize(plan, BASELINE, [arm("evolved", seed, 7) for seed in (0, 1, 2)])
    one, pooled = report["runs"][0], report["arms"]["evolved"]["pooled"]
    assert (pooled["ci_low"], pooled["ci_high"]) == (one["ci_low"], one["ci_high"]), \
        "three copies of one seed's scores are one seed's evidence"
    assert pooled["n"] == 10 and pooled["wins"] == 2


def test_a_control_whose_workspace_changed_is_not_exact() -> None:
    plan = LiftPlan("a", "b", "e", seeds=(0,), test_limit=10)
    runs = [arm("evolved", 0, 5), arm("control", 0, 5, key="other")]
    report = summarize(plan, BASELINE, runs, baseline_key="base")
    assert not report["control_exact"] and "**NO**" in markdown_table(report)


def test_workspace_key_follows_content_not_run_records(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    key = workspace_key(ws)
    (ws / "evolution").mkdir()
    (ws / "evolution" / "journal.jsonl").write_text("{}\n")
    assert workspace_key(ws) == key
    (ws / "prompts" / "system.md").write_text("changed\n")
    assert workspace_key(ws) != key


def test_workspace_key_is_the_key_committed_ledgers_hold(tmp_path: Path) -> None:
    """The same files give the same key as ever (experiment ledgers store these keys): records, git, caches and
    temporary files do not count; a folder named like the records below the top does."""
    files = {"manifest.yaml": "name: w\n", "prompts/system.md": "Solve it.\n", "skills/a/SKILL.md": "body\n",
             "notes/evolution/kept.txt": "nested records name is content\n", "tools/m.py": "print(1)\n",
             ".hidden": "h", "evolution/journal.jsonl": "{}\n", ".git/HEAD": "ref\n", "tools/.git/x": "x",
             "tools/__pycache__/m.pyc": "c", "tools/m.pyc": "c", "prompts/.system.md.tmp": "half"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert sorted(workspace_files(tmp_path)) == [".hidden", "manifest.yaml", "notes/evolution/kept.txt",
                                                 "prompts/system.md", "skills/a/SKILL.md", "tools/m.py"]
    assert workspace_key(tmp_path) == "89c63b9957c3d302"


def test_scoring_solves_only_missing_tasks_after_a_torn_write(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("SOLVE_LOG", raising=False)
    ws = make_workspace(tmp_path / "ws")
    bench = KeywordBenchmark(test=6)
    tasks = bench.get_tasks("test", limit=None)
    store = tmp_path / "scores.jsonl"
    store.write_text(json.dumps({"task_id": "s0", "score": 1.0}) + "\n" + '{"task_id": "s1", "sc')
    scores = score_tasks(ws, bench, tasks, store, ae.EvolveConfig(concurrency=2), "evolved/seed-0")
    assert store_cost(store, "evolved/seed-0")["solves"] == 5
    assert scores["s0"] == 1.0 and scores["s2"] == 0.0 and list(scores) == [t.id for t in tasks]
    again = score_tasks(ws, bench, tasks, store, ae.EvolveConfig(), "evolved/seed-1")
    assert again == scores and store_cost(store, "evolved/seed-1")["solves"] == 0


def test_a_test_scoring_spread_over_sittings_is_charged_in_full_to_the_arm_that_made_it(tmp_path: Path,
                                                                                          monkeypatch) -> None:
    monkeypatch.delenv("SOLVE_LOG", raising=False)
    ws = make_workspace(tmp_path / "ws")
    bench = KeywordBenchmark(test=5)
    tasks = bench.get_tasks("test", limit=None)
    store = tmp_path / "scores.jsonl"
    score_tasks(ws, bench, tasks[:2], store, ae.EvolveConfig(concurrency=1), "evolved/seed-0")   # killed here
    score_tasks(ws, bench, tasks, store, ae.EvolveConfig(concurrency=1), "evolved/seed-0")
    score_tasks(ws, bench, tasks, store, ae.EvolveConfig(concurrency=1), "control/seed-0")     # same content
    assert store_cost(store, "evolved/seed-0")["solves"] == 5
    assert store_cost(store, "control/seed-0")["solves"] == 0 and store_cost(store)["solves"] == 5


def test_an_infrastructure_failure_is_stored_without_a_score_charged_and_retried(tmp_path: Path,
                                                                                monkeypatch) -> None:
    monkeypatch.delenv("SOLVE_LOG", raising=False)

    class FlakyGrader(KeywordBenchmark):
        crashes = {"s1"}

        def evaluate(self, task: ae.types.Task, trajectory: Trajectory) -> ae.types.Feedback:
            if task.id in self.crashes:
                raise RuntimeError("grader down")
            return super().evaluate(task, trajectory)

    ws = make_workspace(tmp_path / "ws")
    bench = FlakyGrader(test=4)
    tasks = bench.get_tasks("test", limit=None)
    store = tmp_path / "scores.jsonl"
    scores = score_tasks(ws, bench, tasks, store, ae.EvolveConfig(concurrency=1), "evolved/seed-0")
    assert sorted(scores) == ["s0", "s2", "s3"], "the failed task has no score"
    cost = store_cost(store, "evolved/seed-0")
    assert (cost["solves"], cost["scored"]) == (4, 3), "the failed solve spent compute and is charged"
    failed = [row for row in map(json.loads, store.read_text().splitlines()) if row["task_id"] == "s1"]
    assert len(failed) == 1 and "score" not in failed[0] and "grader down" in failed[0]["failed"]
    bench.crashes = set()
    again = score_tasks(ws, bench, tasks, store, ae.EvolveConfig(concurrency=1), "evolved/seed-0")
    cost = store_cost(store, "evolved/seed-0")
    assert (cost["solves"], cost["scored"]) == (5, 4) and again == {**scores, "s1": 0.0}


def test_metered_benchmark_counts_solves_across_restarts(tmp_path: Path) -> None:
    bench = KeywordBenchmark(test=2)
    task = bench.get_tasks("test")[0]
    first = MeteredBenchmark(bench, tmp_path / "cost.json")
    first.evaluate(task, Trajectory(task.id, "k0"))
    second = MeteredBenchmark(bench, tmp_path / "cost.json")
    assert second.evaluate(task, Trajectory(task.id, "k0")).success and second.solves == 2
    assert second.name == "keywords" and second.test == 2
    bench.built_from = "keywords:2"
    assert second.identity() == "keywords:2", "an arm's run records the benchmark it meters, not the meter"


def test_an_arms_cost_counts_engine_calls_apart_from_the_agent() -> None:
    usage = {"agent": {"calls": 10, "input_tokens": 100, "output_tokens": 50},
             "engine": {"calls": 3, "input_tokens": 30, "output_tokens": 20}}
    cost = arm_cost({"solves": 4, "seconds": 1.0}, {"usage": usage}, {"solves": 2, "tokens": 5, "seconds": 2.0})
    assert (cost["engine_calls"], cost["tokens"], cost["solves"], cost["seconds"]) == (3, 205, 6, 3.0)


def test_an_arms_seconds_count_its_test_scoring_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test scoring's time is its solves' seconds; the evolution clock stops before it, not after."""
    clock = [0.0]
    monkeypatch.setattr(run_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    scored = DrawScorer.score

    def slow(self: DrawScorer, *args: Any, **kwargs: Any) -> Any:
        clock[0] += 1000.0
        return scored(self, *args, **kwargs)

    monkeypatch.setattr(DrawScorer, "score", slow)
    plan = LiftPlan(str(make_workspace(tmp_path / "agent")), "keywords", "keyword", seeds=(0,), cycles=1,
                    test_limit=10, allow_small_test=True, draws=1, matched=False, control=False)
    monkeypatch.setitem(ENGINE_REGISTRY, "keyword", "lift_fakes.KeywordEngine")
    report = run_lift(plan, KeywordBenchmark(test=10), ae.EvolveConfig(batch_size=4, holdout_limit=6, concurrency=1),
                      tmp_path / "out")
    assert report["runs"][0]["cost"]["seconds"] < 1000.0
