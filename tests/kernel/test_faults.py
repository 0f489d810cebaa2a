"""Fail fast, fail loud: fatal errors stop the run; infrastructure faults are recorded by kind, never scored as
wrong answers, and too many of them fail the cycle (or stop the run at the baseline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, holdout_ids, make_workspace

import agent_evolve as ae
from agent_evolve.engine.records import RunRecords
from agent_evolve.errors import AgentEvolveError, MissingDependencyError
from agent_evolve.llm.errors import LLMTimeoutError
from agent_evolve.types import Task, Trajectory

CONFIG = {"batch_size": 4, "holdout_ratio": 0.3, "concurrency": 1}


class FlakyAgent(KeywordAgent):
    """Times out on the task ids in `failing` while the prompt contains `when` (always when `when` is '')."""

    failing: set[str] = set()
    when = ""

    def solve(self, task: Task) -> Trajectory:
        if task.id in self.failing and self.when in self.system_prompt:
            raise LLMTimeoutError(f"model timed out on {task.id}", provider="fake", model="m")
        return super().solve(task)


def evolve(tmp_path: Path, agent_cls: type, plan: list[tuple], cycles: int = 1, **config) -> tuple[ae.EvolutionResult, Path]:
    workspace = make_workspace(tmp_path / "ws", prompt="k0\n")
    engine = PlanEngine(plan)
    result = ae.Evolver(agent_cls(workspace), KeywordBenchmark(), ae.EvolveConfig(**{**CONFIG, **config}), engine).run(cycles)
    return result, workspace


def test_a_fatal_error_stops_the_run_and_records_no_task_result(tmp_path: Path) -> None:
    class NoKey(KeywordAgent):
        def solve(self, task: Task) -> Trajectory:
            raise MissingDependencyError("set OPENAI_API_KEY")

    with pytest.raises(MissingDependencyError, match="OPENAI_API_KEY"):
        evolve(tmp_path, NoKey, [("noop",)])
    records = RunRecords(tmp_path / "ws")
    assert not records.history.exists() and not records.observations.exists()


def test_a_fatal_error_in_the_engine_stops_the_run(tmp_path: Path) -> None:
    class NoEngineKey(PlanEngine):
        def step(self, workspace, observations, history, trial=None):
            raise MissingDependencyError("set ANTHROPIC_API_KEY")

    workspace = make_workspace(tmp_path / "ws")
    with pytest.raises(MissingDependencyError, match="ANTHROPIC_API_KEY"):
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(**CONFIG), NoEngineKey([])).run(1)
    assert not RunRecords(workspace).history.exists()


def test_infrastructure_failures_at_the_baseline_stop_the_run(tmp_path: Path) -> None:
    class Down(KeywordAgent):
        def solve(self, task: Task) -> Trajectory:
            raise LLMTimeoutError("model server unreachable", provider="fake", model="m")

    with pytest.raises(AgentEvolveError, match="infrastructure.*unreachable"):
        evolve(tmp_path, Down, [("noop",)])


def test_a_few_infrastructure_failures_are_recorded_by_kind_and_not_scored(tmp_path: Path) -> None:
    first_batch = _first_batch_ids(tmp_path)
    FlakyAgent.failing, FlakyAgent.when = {first_batch[0]}, ""
    result, workspace = evolve(tmp_path, FlakyAgent, [("noop",)])
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["metadata"]["errors"] == {"infrastructure": 1} and record["metadata"]["graded"] == 3
    batch = [json.loads(line) for line in (workspace / record["observation_batch"]).read_text().splitlines()]
    graded = [o["feedback"]["score"] for o in batch if o["task"]["id"] != first_batch[0]]
    assert record["score"] == sum(graded) / 3
    assert result.details["errors"] == {"infrastructure": 1}


def test_a_batch_with_too_many_infrastructure_failures_fails_the_cycle_without_a_step(tmp_path: Path) -> None:
    FlakyAgent.failing, FlakyAgent.when = set(_first_batch_ids(tmp_path)[:2]), ""
    result, workspace = evolve(tmp_path, FlakyAgent, [("prompt", "k0 k1")])
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["metadata"]["outcome"] == "failed" and "infrastructure" in record["summary"]
    assert not (workspace / "evolution" / "engine" / "state" / "steps.log").exists(), "the engine never ran"
    assert (workspace / "prompts" / "system.md").read_text() == "k0\n"


def test_a_gate_with_too_many_infrastructure_failures_fails_the_cycle(tmp_path: Path) -> None:
    FlakyAgent.failing, FlakyAgent.when = set(_holdout(tmp_path)), "k1"
    result, workspace = evolve(tmp_path, FlakyAgent, [("prompt", "k0 k1")])
    record = ae.EvolutionHistory(workspace).cycle_records()[0]
    assert record["metadata"]["outcome"] == "failed" and record["metadata"]["status"] == "failed"
    assert "infrastructure" in record["metadata"]["gate_failure"]
    assert (workspace / "prompts" / "system.md").read_text() == "k0\n", "back to the accepted version"


def test_a_task_that_failed_for_infrastructure_is_left_out_of_the_gate(tmp_path: Path) -> None:
    FlakyAgent.failing, FlakyAgent.when = {_holdout(tmp_path)[0]}, "k1"
    result, workspace = evolve(tmp_path, FlakyAgent, [("prompt", "k0 k1")])
    gate = json.loads((RunRecords(workspace).gate / "cycle_1.json").read_text())
    assert _holdout(tmp_path)[0] not in gate["candidate"]["scores"]
    assert gate["candidate"]["infrastructure_failures"] == 1
    assert ae.EvolutionHistory(workspace).cycle_records()[0]["metadata"]["outcome"] == "accepted"


def _dry_run(tmp_path: Path) -> Path:
    workspace = tmp_path / "dry" / "ws"
    if not workspace.exists():
        make_workspace(workspace, prompt="k0\n")
        ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), ae.EvolveConfig(**CONFIG), PlanEngine([("noop",)])).run(1)
    return workspace


def _first_batch_ids(tmp_path: Path) -> list[str]:
    journal = (_dry_run(tmp_path) / "evolution" / "journal.jsonl").read_text().splitlines()
    return next(e for e in map(json.loads, journal) if e["phase"] == "solved")["batch_ids"]


def _holdout(tmp_path: Path) -> list[str]:
    return holdout_ids(_dry_run(tmp_path))
