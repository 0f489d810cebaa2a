"""Stopping is not fooled by noise: convergence is a plateau of the accepted score, never equal batch scores of
different tasks (a run stopped after 4 of 6 cycles because three 4-task batches each scored 0.25)."""

from __future__ import annotations

from pathlib import Path

from kernel_fakes import KeywordAgent, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.engine.run_metrics import accepted_score_plateaued
from agent_evolve.engine.tasks import plan_tasks
from agent_evolve.types import Feedback, Task, Trajectory

KEYWORDS = 6
SETTINGS = {"batch_size": 4, "holdout_ratio": 0.3, "max_cycles": 6, "egl_window": 3, "egl_threshold": 0.05}


class AlikeBatches(ae.BenchmarkAdapter):
    """Every train batch scores 0.25 whatever the agent does; a holdout task is solved by its keyword.

    The holdout is the one the run will carve (same plan call), its tasks spread evenly over the keywords, so
    each keyword the prompt gains raises the holdout score by 1/KEYWORDS.
    """

    def __init__(self, n: int = 40):
        ids = [f"t{i}" for i in range(n)]
        plan = plan_tasks(ids, SETTINGS["holdout_ratio"], 0, 50, 0.0, None)
        self.holdout = set(plan.holdout_ids)
        spread = {task_id: f"k{j % KEYWORDS}" for j, task_id in enumerate(plan.holdout_ids)}
        self.tasks = [Task(id=i, input=i, metadata={"keyword": spread.get(i, "k0")}) for i in ids]

    def get_tasks(self, split: str = "train", limit: int = 10) -> list[Task]:
        return self.tasks[:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        if task.id not in self.holdout:
            return Feedback(success=False, score=0.25)
        ok = trajectory.output == task.metadata["keyword"]
        return Feedback(success=ok, score=float(ok))


def evolve(tmp_path: Path, prompts: list[str]) -> ae.EvolutionResult:
    workspace = make_workspace(tmp_path / "ws")
    engine = PlanEngine([("prompt", text) for text in prompts])
    return ae.Evolver(KeywordAgent(workspace), AlikeBatches(), ae.EvolveConfig(**SETTINGS), engine).run()


def test_alike_batch_scores_do_not_stop_a_run_whose_accepted_score_rises(tmp_path: Path) -> None:
    growing = [" ".join(f"k{k}" for k in range(cycle + 1)) for cycle in range(6)]
    result = evolve(tmp_path, growing)
    assert result.score_history == [0.25] * 6, "every batch scored alike"
    assert result.cycles_completed == 6 and result.details["stop_reason"] == "" and not result.converged
    assert result.details["accepted"] == 6


def test_a_run_whose_accepted_score_plateaus_stops_by_the_documented_rule(tmp_path: Path) -> None:
    result = evolve(tmp_path, ["k0", "nothing"])  # cycle 1 accepted, then three rejected cycles
    assert result.details["stop_reason"] == "converged" and result.converged
    assert result.cycles_completed == 1 + SETTINGS["egl_window"]


def test_the_rule_compares_the_window_with_the_best_before_it() -> None:
    assert not accepted_score_plateaued([0.25, 0.25, 0.25], window=3, epsilon=0.05), "too short to judge"
    assert accepted_score_plateaued([0.25, 0.25, 0.25, 0.25], window=3, epsilon=0.05)
    assert not accepted_score_plateaued([0.1, 0.1, 0.1, 0.2], window=3, epsilon=0.05), "a rise inside the window"
    assert accepted_score_plateaued([0.1, 0.5, 0.52, 0.52, 0.52], window=3, epsilon=0.05), "a rise under epsilon"
    assert accepted_score_plateaued([0.5, 0.4, 0.45, 0.5], window=3, epsilon=0.05), "no new best"
    assert not accepted_score_plateaued([0.0, float("nan"), 0.5, 0.5, 0.5], window=3, epsilon=0.05)
