"""Rollouts on a local Ray instance (2 CPUs, started once for the module): same records, a killed worker survived."""

from __future__ import annotations

import os
import threading
from functools import partial
from pathlib import Path

import pytest
from executor_fakes import KillingAgent, committed_workspace, peak_model_calls, run_summary
from kernel_fakes import KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve
import agent_evolve as ae
from agent_evolve.engine.solving import attempt
from agent_evolve.errors import ConfigError

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'agent-evolve[ray]')")
from agent_evolve.engine.executors.ray_cluster import RayExecutor  # noqa: E402 - needs ray

PLAN = [("prompt", "k0"), ("prompt", "k0 k1"), ("memory", "note")]
HERE = Path(__file__).parent


@pytest.fixture(scope="module", autouse=True)
def cluster() -> None:
    """Workers import the package under test and these fakes from the same folders as this process."""
    paths = [str(Path(agent_evolve.__file__).parents[1]), str(HERE.parent / "kernel"), str(HERE)]
    env = {"PYTHONPATH": os.pathsep.join(paths)}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env})
    yield
    ray.shutdown()


def evolve(workspace: Path, executor: str, agent_factory=None) -> dict:  # noqa: ANN001 - a BaseAgent factory
    make_workspace(workspace)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=2, executor=executor)
    evolver = ae.Evolver(str(workspace), KeywordBenchmark(), config, PlanEngine(PLAN))
    if agent_factory is not None:
        evolver.agent_factory = agent_factory
    evolver.run(3)
    return run_summary(workspace)


@pytest.fixture(scope="module")
def threads_reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return evolve(tmp_path_factory.mktemp("threads") / "ws", "threads")


def test_an_evolution_on_ray_keeps_the_records_of_threads(tmp_path: Path, threads_reference: dict) -> None:
    assert evolve(tmp_path / "ws", "ray") == threads_reference
    outcomes = [r["metadata"]["outcome"] for r in threads_reference["records"]]
    assert outcomes == ["accepted", "accepted", "rejected"]


def test_an_evolution_survives_a_worker_killed_mid_batch(tmp_path: Path, threads_reference: dict) -> None:
    marker = tmp_path / "killed"
    summary = evolve(tmp_path / "ws", "ray", partial(KillingAgent, task_id="t5", marker=str(marker)))
    assert marker.exists(), "the worker solving t5 killed itself once"
    assert summary == threads_reference


def test_a_task_lost_twice_is_an_infrastructure_failure(tmp_path: Path) -> None:
    agent = committed_workspace(tmp_path / "ws", prompt="k0 k1\n")
    tasks = KeywordBenchmark().get_tasks(limit=4)
    observations = RayExecutor(2, partial(KillingAgent, task_id="t1")).run(attempt, agent, KeywordBenchmark(), tasks)
    assert [o.feedback.success for o in observations] == [True, False, True, True]
    assert "worker lost twice" in observations[1].feedback.raw["infra_error"]


def test_a_factory_that_cannot_travel_is_a_configuration_error(tmp_path: Path) -> None:
    agent = committed_workspace(tmp_path / "ws")
    lock = threading.Lock()
    factory = partial(KillingAgent, task_id=lock)  # a lock cannot be pickled
    with pytest.raises(ConfigError, match="cannot be pickled"):
        RayExecutor(2, factory).run(attempt, agent, KeywordBenchmark(), KeywordBenchmark().get_tasks(limit=2))


def test_the_model_call_limit_is_shared_across_the_cluster(tmp_path: Path) -> None:
    assert peak_model_calls(RayExecutor, tmp_path) == 2
