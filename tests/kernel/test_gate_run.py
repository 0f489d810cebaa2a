"""The gate in the loop: task by task on the same holdout, k repeats, the incumbent re-measured when the agent
is not deterministic, and the per-task table sealed away from the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, holdout_ids, make_workspace

import agent_evolve as ae
from agent_evolve.engine import gate_evaluation
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.engine.records import RunRecords
from agent_evolve.types import Task, Trajectory


class CountingAgent(KeywordAgent):
    """Counts solves per prompt, so a test can tell which version the gate measured."""

    solves: dict[str, int] = {}
    sampling = False

    @property
    def deterministic(self) -> bool:
        return not self.sampling

    def solve(self, task: Task) -> Trajectory:
        key = self.system_prompt.strip()
        CountingAgent.solves[key] = CountingAgent.solves.get(key, 0) + 1
        return super().solve(task)


def evolve(tmp_path: Path, plan: list[tuple], cycles: int, progress=None, **config) -> Path:
    CountingAgent.solves = {}
    workspace = make_workspace(tmp_path / "ws", prompt="k0\n")
    settings = ae.EvolveConfig(**{"batch_size": 4, "holdout_ratio": 0.3, "concurrency": 1, **config})
    ae.Evolver(CountingAgent(workspace), KeywordBenchmark(), settings, PlanEngine(plan), progress=progress).run(cycles)
    return workspace


def gate_record(workspace: Path, cycle: int) -> dict:
    return json.loads((RunRecords(workspace).gate / f"cycle_{cycle}.json").read_text())


def test_the_decision_record_keeps_a_per_task_table_outside_the_workspace(tmp_path: Path) -> None:
    workspace = evolve(tmp_path, [("prompt", "k0 k1")], 1, gate_repeats=3)
    record = gate_record(workspace, 1)
    holdout = holdout_ids(workspace)
    assert set(record["candidate"]["scores"]) == set(holdout)
    assert all(scores == [1.0, 1.0, 1.0] for scores in record["candidate"]["scores"].values())
    assert record["decision"]["action"] == "accept"
    assert {row["task_id"] for row in record["decision"]["per_task"]} == set(holdout)
    assert all(row["repeats"] == 3 for row in record["decision"]["per_task"])
    assert workspace not in RunRecords(workspace).gate.parents
    history = ae.EvolutionHistory(workspace).cycle_records()[0]["metadata"]["gate"]
    assert history["accepted"] and "per_task" not in history and "excluded" not in history
    k1_tasks = sum(int(task_id[1:]) % 2 for task_id in holdout)
    assert history["statistic"]["wins"] == k1_tasks, "the aggregate statistic is visible, not the table"


def test_the_configured_strategy_decides(tmp_path: Path) -> None:
    workspace = evolve(tmp_path, [("prompt", "k0 k1")], 1, gate_strategy="paired")
    record = gate_record(workspace, 1)["decision"]
    assert record["strategy"] == "paired" and record["statistic"]["p_value"] is not None


def test_a_deterministic_incumbent_is_not_measured_again(tmp_path: Path) -> None:
    CountingAgent.sampling = False
    workspace = evolve(tmp_path, [("prompt", "nothing")], 2)
    holdout = len(holdout_ids(workspace))
    assert not gate_record(workspace, 1)["remeasured_incumbent"]
    assert CountingAgent.solves["k0"] == holdout + 2 * 4, "baseline holdout once, then two train batches"


def test_a_sampling_agent_makes_the_gate_remeasure_the_incumbent(tmp_path: Path) -> None:
    CountingAgent.sampling = True
    try:
        workspace = evolve(tmp_path, [("prompt", "nothing"), ("prompt", "nothing new")], 2)
    finally:
        CountingAgent.sampling = False
    holdout = len(holdout_ids(workspace))
    record = gate_record(workspace, 1)
    assert record["remeasured_incumbent"] and set(record["incumbent"]["scores"]) == set(holdout_ids(workspace))
    assert CountingAgent.solves["k0"] == 3 * holdout + 2 * 4, "baseline plus one re-measure per gate"


def test_the_config_can_force_remeasuring(tmp_path: Path) -> None:
    workspace = evolve(tmp_path, [("prompt", "nothing")], 1, gate_remeasure_incumbent=True)
    assert gate_record(workspace, 1)["remeasured_incumbent"]


def test_a_long_gate_is_announced_before_it_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate_evaluation, "GATE_WARN_SECONDS", -1.0)
    events: list[ProgressEvent] = []
    evolve(tmp_path, [("prompt", "k0 k1")], 1, progress=events.append)
    warnings = [e for e in events if e.phase == "gate_warning"]
    assert len(warnings) == 1 and "holdout attempts" in warnings[0].message


class SpendingAgent(KeywordAgent):
    """Reports one model call of 100 tokens per solve, two calls of 150 each when its prompt says 'twice'."""

    def solve(self, task: Task) -> Trajectory:
        trajectory = super().solve(task)
        twice = "twice" in self.system_prompt
        usage = {"calls": 2 if twice else 1, "input_tokens": 200 if twice else 80, "output_tokens": 100 if twice else 20}
        trajectory.steps.append({"type": "answer", "usage": usage})
        return trajectory


def test_an_accepted_change_reports_its_extra_calls_and_tokens_per_task(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws", prompt="k0\n")
    settings = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1)
    plan = [("prompt", "k0 k1 twice"), ("prompt", "twice: k0 k1")]
    ae.Evolver(SpendingAgent(workspace), KeywordBenchmark(), settings, PlanEngine(plan)).run(2)
    first, second = (r["metadata"]["gate"] for r in ae.EvolutionHistory(workspace).cycle_records())
    assert first["accepted"] and first["cost"] == {"candidate": {"calls": 2.0, "tokens": 300.0},
                                                    "incumbent": {"calls": 1.0, "tokens": 100.0},
                                                    "extra": {"calls": 1.0, "tokens": 200.0}}
    assert second["cost"]["incumbent"] == {"calls": 2.0, "tokens": 300.0}, "the accepted version's cost is kept"
    assert second["cost"]["extra"] == {"calls": 0.0, "tokens": 0.0}


def test_a_candidate_already_rejected_against_the_same_version_is_rejected_again_unscored(tmp_path: Path) -> None:
    CountingAgent.sampling = False
    workspace = evolve(tmp_path, [("prompt", "nothing")], 2)
    first, second = gate_record(workspace, 1), gate_record(workspace, 2)
    assert first["decision"]["action"] == second["decision"]["action"] == "reject"
    assert second["same_as"] == "cand-1" and "cand-1" in second["decision"]["reason"]
    assert "candidate" not in second and "incumbent" not in second
    scored = sum(len(scores) for scores in first["candidate"]["scores"].values())
    assert CountingAgent.solves["nothing"] == scored, "the second gate solved nothing"
    history = ae.EvolutionHistory(workspace).cycle_records()
    assert [r["metadata"]["gate"]["candidate_score"] for r in history] == [first["decision"]["candidate_score"]] * 2


def test_the_same_files_are_scored_again_once_another_version_is_accepted(tmp_path: Path) -> None:
    CountingAgent.sampling = False
    workspace = evolve(tmp_path, [("prompt", "nothing"), ("prompt", "k0 k1")], 3)
    assert gate_record(workspace, 2)["decision"]["action"] == "accept"
    third = gate_record(workspace, 3)
    assert "same_as" not in third and third["incumbent_tag"] == "evo-2" and "candidate" in third


def test_a_third_look_points_at_the_gate_that_scored_the_files(tmp_path: Path) -> None:
    CountingAgent.sampling = False
    workspace = evolve(tmp_path, [("prompt", "nothing")], 3)
    third = gate_record(workspace, 3)
    assert third["same_as"] == "cand-1" and third["decision"]["reason"].count("the same files as") == 1
