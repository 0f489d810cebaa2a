"""The real reference agent on worker processes and Ray: its model client is built on the worker from the config."""

from __future__ import annotations

import os
import pickle
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from executor_fakes import run_summary
from kernel_fakes import KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve
import agent_evolve as ae
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.api import AgentBuilder, RunClients, agent_from_workspace
from agent_evolve.llm.usage import UsageLedger

sys.path.insert(0, str(Path(__file__).parents[1] / "llm"))
from wire_servers import Reply, Request, WireServer, openai_body  # noqa: E402 - the llm tests' loopback server

PLAN = [("prompt", "k0"), ("prompt", "k0 k1"), ("memory", "note")]
HERE = Path(__file__).parent
MANIFEST = """name: reference-on-workers
version: 0.1.0
contract_version: "1.0"
agent:
  type: custom
  entrypoint: executor_fakes.KillingReferenceAgent
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


def keyword_model(request: Request) -> Reply:
    """Answers task i with its keyword k(i % 2) when that keyword is in the system prompt, else '?'."""
    messages = request.body["messages"]
    system = " ".join(m["content"] for m in messages if m["role"] == "system")
    number = int(re.search(r"task (\d+)", messages[-1]["content"]).group(1))
    keyword = f"k{number % 2}"
    return Reply(body=openai_body(keyword if keyword in system else "?", []))


@pytest.fixture(scope="module")
def server() -> Iterator[WireServer]:
    wire = WireServer(keyword_model).start()
    yield wire
    wire.stop()


@pytest.fixture(autouse=True)
def kill_marker(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("marker")
    monkeypatch.setenv("AE_KILL_MARKER_DIR", str(folder))
    monkeypatch.setenv("AE_DRIVER_PID", str(os.getpid()))
    return folder / "killed"


def config(server: WireServer, executor: str) -> ae.EvolveConfig:
    return ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=2, executor=executor, preflight=False,
                           agent_model="openai/test-model", agent_base_url=f"{server.url}/v1",
                           llm_cache_dir=None)


def evolve(workspace: Path, server: WireServer, executor: str) -> dict:
    make_workspace(workspace, manifest=MANIFEST)
    ae.Evolver(str(workspace), KeywordBenchmark(), config(server, executor), PlanEngine(PLAN)).run(3)
    return run_summary(workspace)


def test_the_builder_travels_without_its_client_and_builds_one_from_the_config(tmp_path: Path, server: WireServer) -> None:
    workspace = make_workspace(tmp_path / "ws", manifest=MANIFEST)
    settings = config(server, "threads")
    _, factory = agent_from_workspace(workspace, settings, RunClients(settings, UsageLedger()))
    assert isinstance(factory, AgentBuilder) and factory.llm is not None
    assert factory(workspace).llm is factory.llm, "in the driver every agent shares the run's client"
    copy = pickle.loads(pickle.dumps(factory))
    assert copy.llm is None and copy.wants_llm
    built = copy(workspace)
    assert isinstance(built, ReferenceAgent) and built.llm is not factory.llm
    assert built.llm.model == "openai/test-model"
    assert copy(workspace).llm is built.llm, "one client per worker process, not one per version"


def test_processes_run_the_reference_agent_with_the_records_of_threads(tmp_path: Path, server: WireServer,
                                                                       kill_marker: Path) -> None:
    reference = evolve(tmp_path / "threads", server, "threads")
    assert [r["metadata"]["outcome"] for r in reference["records"]] == ["accepted", "accepted", "rejected"]
    assert evolve(tmp_path / "processes", server, "processes") == reference
    assert kill_marker.exists(), "a worker solving t5 was killed mid-batch and its task retried"


def test_ray_runs_the_reference_agent_with_the_records_of_threads(tmp_path: Path, server: WireServer,
                                                                  kill_marker: Path) -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'agent-evolve[ray]')")
    reference = evolve(tmp_path / "threads", server, "threads")
    paths = [str(Path(agent_evolve.__file__).parents[1]), str(HERE.parent / "kernel"), str(HERE)]
    env = {"PYTHONPATH": os.pathsep.join(paths), "AE_KILL_MARKER_DIR": str(kill_marker.parent),
           "AE_DRIVER_PID": str(os.getpid())}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": env})
    try:
        assert evolve(tmp_path / "ray", server, "ray") == reference
    finally:
        ray.shutdown()
    assert kill_marker.exists(), "a Ray worker solving t5 was killed mid-batch and its task retried"
