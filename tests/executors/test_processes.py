"""The executor protocol's threads and processes backends, and choosing one from the config."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import pytest
from executor_fakes import KillingAgent, MeteredAgent, NotingAgent, committed_workspace, peak_model_calls, run_summary
from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae
from agent_evolve.engine.executors import ProcessExecutor, ThreadExecutor, make_executor
from agent_evolve.engine.solving import attempt, solve_all
from agent_evolve.errors import BudgetExceededError, ConfigError, MissingDependencyError
from agent_evolve.llm.usage import UsageLedger

PLAN = [("prompt", "k0"), ("prompt", "k0 k1"), ("memory", "note")]


def outcome(observations: list[ae.Observation]) -> list[tuple[str, str, bool]]:
    return [(o.task.id, o.trajectory.output, o.feedback.success) for o in observations]


def test_processes_give_the_threads_results_in_task_order(tmp_path: Path) -> None:
    agent = committed_workspace(tmp_path / "ws")
    tasks = KeywordBenchmark(n=12).get_tasks(limit=12)
    finished: list[str] = []
    threads = solve_all(agent, KeywordBenchmark(), tasks, 3)
    processes = ProcessExecutor(3, KeywordAgent).run(attempt, agent, KeywordBenchmark(), tasks, lambda o: finished.append(o.task.id))
    assert outcome(processes) == outcome(threads)
    assert [o.task.id for o in processes] == [t.id for t in tasks]
    assert sorted(finished) == sorted(t.id for t in tasks)


def test_workers_load_the_committed_version_not_the_live_tree(tmp_path: Path) -> None:
    agent = committed_workspace(tmp_path / "ws", prompt="k0\n")
    (tmp_path / "ws" / "prompts" / "system.md").write_text("k0 k1 mid-edit\n")
    tasks = KeywordBenchmark().get_tasks(limit=4)
    observations = ProcessExecutor(2, KeywordAgent).run(attempt, agent, KeywordBenchmark(), tasks)
    assert [o.trajectory.output for o in observations] == ["k0", "?", "k0", "?"]


def test_buffered_memories_and_drafts_reach_the_driver_agent_in_task_order(tmp_path: Path) -> None:
    agent = committed_workspace(tmp_path / "ws")
    tasks = KeywordBenchmark().get_tasks(limit=5)
    ProcessExecutor(3, NotingAgent).run(attempt, agent, KeywordBenchmark(), tasks)
    agent.export_to_fs()
    lines = (tmp_path / "ws" / "memory" / "episodic.jsonl").read_text().splitlines()
    assert lines == [f'{{"content": "saw t{i}", "task": "t{i}"}}' for i in range(5)]
    assert sorted(p.stem for p in (tmp_path / "ws" / "skills" / "_drafts").iterdir()) == [f"draft-t{i}" for i in range(5)]


def test_a_killed_worker_is_retried_once_then_its_task_is_an_infrastructure_failure(tmp_path: Path) -> None:
    agent = committed_workspace(tmp_path / "ws", prompt="k0 k1\n")
    tasks = KeywordBenchmark().get_tasks(limit=6)
    once = partial(KillingAgent, task_id="t2", marker=str(tmp_path / "killed"))
    observations = ProcessExecutor(2, once).run(attempt, agent, KeywordBenchmark(), tasks)
    assert (tmp_path / "killed").exists()
    assert all(o.feedback.success for o in observations) and len(observations) == 6
    always = partial(KillingAgent, task_id="t2")
    observations = ProcessExecutor(2, always).run(attempt, agent, KeywordBenchmark(), tasks)
    assert [o.feedback.success for o in observations] == [True, True, False, True, True, True]
    assert "worker lost twice" in observations[2].feedback.raw["infra_error"]


def test_usage_spent_in_workers_reaches_the_run_ledger_and_its_budget(tmp_path: Path) -> None:
    agent = committed_workspace(tmp_path / "ws")
    ledger = UsageLedger()
    tasks = KeywordBenchmark().get_tasks(limit=6)
    ProcessExecutor(2, partial(MeteredAgent, ledger=ledger), ledger).run(attempt, agent, KeywordBenchmark(), tasks)
    assert (ledger.total("agent").calls, ledger.total("agent").input_tokens) == (6, 60)
    ledger.set_budget(max_total_tokens=75)
    with pytest.raises(BudgetExceededError):
        ProcessExecutor(1, partial(MeteredAgent, ledger=ledger), ledger).run(attempt, agent, KeywordBenchmark(), tasks)
    assert ledger.total("agent").calls < 12


def test_the_model_call_limit_is_shared_by_all_worker_processes(tmp_path: Path) -> None:
    assert peak_model_calls(ProcessExecutor, tmp_path) == 2


def test_an_evolution_on_processes_keeps_the_records_of_threads(tmp_path: Path) -> None:
    summaries = []
    for executor in ("threads", "processes"):
        workspace = make_workspace(tmp_path / executor)
        config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=2, executor=executor)
        ae.Evolver(str(workspace), KeywordBenchmark(), config, PlanEngine(PLAN)).run(3)
        summaries.append(run_summary(workspace))
    assert summaries[0] == summaries[1]
    assert [r["metadata"]["outcome"] for r in summaries[0]["records"]] == ["accepted", "accepted", "rejected"]


def test_the_config_names_the_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_executor(ae.EvolveConfig(), KeywordAgent), ThreadExecutor)
    assert isinstance(make_executor(ae.EvolveConfig(executor="processes"), KeywordAgent), ProcessExecutor)
    with pytest.raises(ConfigError, match="'executor' must be one of threads, processes, ray"):
        make_executor(ae.EvolveConfig(executor="slurm"), KeywordAgent)
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delitem(sys.modules, "agent_evolve.engine.executors.ray_cluster", raising=False)
    with pytest.raises(MissingDependencyError, match=r"pip install 'agent-evolve\[ray\]'"):
        make_executor(ae.EvolveConfig(executor="ray"), KeywordAgent)
