"""Scores and stopping: the cycle's average score, convergence on the accepted score (engine/run_metrics.py),
patience, and a final_score that means something without a holdout."""

from __future__ import annotations

import json
from pathlib import Path

from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.types import Feedback, Task, Trajectory


class WeightedBenchmark(KeywordBenchmark):
    """Solved tasks score 0.25..1.0 by id, so batches of different tasks have different averages."""

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == task.metadata["keyword"]
        return Feedback(success=ok, score=ok * (int(task.id[1:]) % 4 + 1) / 4)


def evolve(
    tmp_path: Path, plan: list[tuple], benchmark=None, prompt: str = "k0\n", **config
) -> tuple[ae.EvolutionResult, Path]:
    workspace = make_workspace(tmp_path / "ws", prompt=prompt)
    settings = ae.EvolveConfig(**{"batch_size": 4, "holdout_ratio": 0.3, **config})
    result = ae.Evolver(KeywordAgent(workspace), benchmark or WeightedBenchmark(), settings, PlanEngine(plan)).run()
    return result, workspace


def test_every_candidate_rejected_still_runs_all_six_cycles(tmp_path: Path) -> None:
    result, workspace = evolve(tmp_path, [("prompt", "nothing")], max_cycles=6, egl_window=10)  # no plateau stop
    records = ae.EvolutionHistory(workspace).cycle_records()
    assert [r["metadata"]["outcome"] for r in records] == ["rejected"] * 6
    assert result.cycles_completed == 6 and result.details["stop_reason"] == "" and not result.converged


def test_cycle_score_is_the_batch_average_and_both_scores_are_recorded(tmp_path: Path) -> None:
    result, workspace = evolve(tmp_path, [("prompt", "k0 k1"), ("noop",)], KeywordBenchmark(), max_cycles=2)
    records = ae.EvolutionHistory(workspace).cycle_records()
    for record in records:
        batch = [json.loads(line) for line in (workspace / record["observation_batch"]).read_text().splitlines()]
        assert record["score"] == sum(o["feedback"]["score"] for o in batch) / len(batch)
        assert record["metadata"]["batch_score"] == record["score"]
    assert records[0]["metadata"]["accepted_score"] == 1.0 > records[0]["score"]
    metrics = json.loads((workspace / "evolution" / "metrics.json").read_text())
    assert metrics["accepted_score"] == 1.0 and metrics["batch_score"] == records[-1]["score"]
    assert result.score_history == [r["score"] for r in records]


def test_patience_stops_after_cycles_without_an_accepted_improvement(tmp_path: Path) -> None:
    result, _ = evolve(tmp_path, [("prompt", "nothing")], max_cycles=6, patience=2)
    assert result.cycles_completed == 2 and result.details["stop_reason"] == "patience"


def test_a_flat_accepted_score_converges_after_the_window(tmp_path: Path) -> None:
    result, _ = evolve(tmp_path, [("prompt", "nothing")], KeywordBenchmark(), prompt="baseline\n", max_cycles=6)
    assert result.details["stop_reason"] == "converged" and result.cycles_completed == 3


def test_without_holdout_final_score_is_the_accepted_version_on_train(tmp_path: Path) -> None:
    result, workspace = evolve(tmp_path, [("prompt", "k0 k1"), ("noop",)], KeywordBenchmark(), prompt="baseline\n",
                               holdout_ratio=0.0, max_cycles=2)
    records = ae.EvolutionHistory(workspace).cycle_records()
    assert [r["metadata"]["outcome"] for r in records] == ["accepted", "unchanged"]
    assert records[0]["score"] == 0.0, "cycle 1's batch was solved by the baseline"
    assert result.final_score == 1.0, "the accepted version solved its own batch and the next"
    assert result.details["baseline_score"] == 0.0 and result.details["holdout_size"] == 0
