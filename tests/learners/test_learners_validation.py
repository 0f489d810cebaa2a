"""The learners' validation split: carved from train apart from the holdout, never batched, open to the trial
runner (which still refuses holdout and test ids)."""

from __future__ import annotations

from pathlib import Path

import pytest
from learner_fakes import KeywordAgent, KeywordBenchmark, make_workspace

import agent_evolve as ae
from agent_evolve.engine.tasks import TaskPlan, plan_tasks
from agent_evolve.engine.trial import TrialRunner
from agent_evolve.errors import ConfigError, TrialError

IDS = [f"t{i}" for i in range(20)]


def test_validation_is_carved_from_train_disjoint_from_the_holdout() -> None:
    plan = plan_tasks(IDS, 0.2, seed=3, val_ratio=0.25)
    assert (len(plan.holdout_ids), len(plan.val_ids), len(plan.train_ids)) == (4, 4, 12)
    assert sorted(plan.train_ids + plan.holdout_ids + plan.val_ids) == sorted(IDS)
    assert plan == plan_tasks(IDS, 0.2, seed=3, val_ratio=0.25)
    assert plan.holdout_ids == plan_tasks(IDS, 0.2, seed=3).holdout_ids      # adding validation keeps the holdout


def test_val_limit_caps_and_train_keeps_at_least_one_task() -> None:
    assert len(plan_tasks(IDS, 0.2, seed=0, val_ratio=0.5, val_limit=2).val_ids) == 2
    tiny = plan_tasks(["a", "b"], 0.5, seed=0, val_ratio=0.9)
    assert len(tiny.train_ids) == 1 and tiny.val_ids == ()
    assert plan_tasks(IDS, 0.2, seed=0).val_ids == ()


def test_a_plan_saved_before_validation_existed_still_loads() -> None:
    assert TaskPlan.from_dict({"train_ids": ["a"], "holdout_ids": ["b"]}) == TaskPlan(("a",), ("b",), ())


def test_val_ratio_out_of_range_is_refused() -> None:
    with pytest.raises(ConfigError, match="val_ratio"):
        ae.EvolveConfig(val_ratio=1.0)


def test_trial_scores_train_and_validation_ids_and_refuses_the_rest(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", prompt="k0\n")
    tasks = {t.id: t for t in KeywordBenchmark().get_tasks(limit=20)}
    trial = TrialRunner({"t1": tasks["t1"]}, KeywordBenchmark(), KeywordAgent, workspace,
                        validation_tasks={"t2": tasks["t2"]})
    seen: list[str] = []
    report = trial(["t1", "t2"], on_result=lambda r: seen.append(r.task_id))
    assert [r.score for r in report.results] == [0.5, 0.5] and sorted(seen) == ["t1", "t2"]
    assert trial.validation_ids == ["t2"]
    with pytest.raises(TrialError, match="t3"):
        trial(["t1", "t3"])


def test_the_loop_never_batches_validation_tasks(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    config = ae.EvolveConfig(batch_size=6, holdout_ratio=0.2, val_ratio=0.25, concurrency=1, egl_window=10)

    class Probe(ae.EvolutionEngine):
        def step(self, workspace, observations, history, trial=None):  # noqa: ANN001, ANN201
            self.val_ids = trial.validation_ids
            with pytest.raises(TrialError, match="refused"):
                trial(sealed_holdout[:1])
            self.refused = True
            return ae.StepResult(mutated=False, summary="probe")

    probe = Probe()
    sealed_holdout = plan_tasks([t.id for t in KeywordBenchmark().get_tasks(limit=100)], 0.2, 0, 50, 0.25).holdout_ids
    ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, probe).run(3)
    observed = {o.task.id for o in ae.EvolutionHistory(workspace).get_observations()}
    assert probe.refused and len(probe.val_ids) == 4 and not set(probe.val_ids) & observed and len(observed) == 12
