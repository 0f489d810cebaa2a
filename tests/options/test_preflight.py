"""The pre-flight in Evolver.run(): every model role and the benchmark, before anything is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from options_fakes import FixedUsageLLM

import agent_evolve as ae
from agent_evolve.engine.preflight import PreflightError
from agent_evolve.errors import MissingDependencyError, is_fatal
from agent_evolve.llm import factory
from agent_evolve.llm.errors import AuthenticationError, ProviderRequestError, error_for_status
from agent_evolve.types import Feedback, StepResult, Task, Trajectory

MANIFEST = """name: spender
contract_version: "1.0"
agent: {type: custom, entrypoint: options_fakes.SpendingAgent}
evolvable_layers: [prompts]
"""


class Rejecting(FixedUsageLLM):
    def complete(self, messages, **kwargs):
        self.calls += 1
        raise error_for_status(401, "invalid x-api-key", provider="anthropic", model="claude")


class Bench(ae.BenchmarkAdapter):
    name = "bench"

    def __init__(self, problem: str | None = None) -> None:
        self.problem = problem
        self.checked = 0

    def get_tasks(self, split="train", limit=10):
        return [Task(id=f"{split}{i}", input="x") for i in range(6)][:limit]

    def evaluate(self, task, trajectory):
        return Feedback(True, 1.0)

    def check_ready(self) -> None:
        self.checked += 1
        if self.problem:
            raise MissingDependencyError(self.problem)


class OwnAgent(ae.BaseAgent):
    def solve(self, task: Task) -> Trajectory:
        return Trajectory(task.id, "ok")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "agent"
    (path / "prompts").mkdir(parents=True)
    (path / "prompts" / "system.md").write_text("base\n")
    (path / "manifest.yaml").write_text(MANIFEST)
    return path


def test_401_and_403_are_fatal_authentication_errors() -> None:
    for status in (401, 403):
        error = error_for_status(status, "bad key", provider="openai", model="gpt")
        assert isinstance(error, AuthenticationError) and isinstance(error, ProviderRequestError)
        assert is_fatal(error) and not error.retryable and "check the API key" in str(error)
    assert not is_fatal(error_for_status(400, "bad request", provider="openai", model="gpt"))


def test_refused_credentials_stop_the_run_before_anything_is_recorded(workspace, monkeypatch) -> None:
    rejecting = Rejecting("anthropic/claude")
    monkeypatch.setattr(factory, "make_provider", lambda ref, **kw: rejecting)
    bench = Bench()
    evolver = ae.Evolver(str(workspace), bench, ae.EvolveConfig(batch_size=2), "adaptive")
    with pytest.raises(PreflightError) as caught:
        evolver.run(1)
    assert is_fatal(caught.value)
    message = str(caught.value)
    assert "agent model" in message and "engine model" in message and "401" in message
    assert rejecting.calls == 2, "one tiny call per role, not retried"
    assert bench.checked == 1
    assert not (workspace / "evolution").exists(), "nothing is recorded"


def test_a_problem_names_its_model_once(workspace, monkeypatch) -> None:
    """The model's error already starts with its name; the pre-flight line does not say it twice."""
    monkeypatch.setattr(factory, "make_provider", lambda ref, **kw: Rejecting(ref.full))
    config = ae.EvolveConfig(agent_model="anthropic/claude", evolver_model="anthropic/claude")
    with pytest.raises(PreflightError) as caught:
        ae.Evolver(str(workspace), Bench(), config, "adaptive").run(1)
    message = str(caught.value)
    assert "agent model anthropic/claude: credentials rejected (401)" in message, message
    assert message.count("anthropic/claude") == 2, "once per role"


def test_every_problem_is_named_at_once(workspace, monkeypatch) -> None:
    monkeypatch.setattr(factory, "make_provider", lambda ref, **kw: Rejecting(ref.full))
    evolver = ae.Evolver(str(workspace), Bench("start Docker"), ae.EvolveConfig(), "adaptive")
    with pytest.raises(PreflightError, match="benchmark bench: start Docker") as caught:
        evolver.run(1)
    assert "agent model" in str(caught.value)


class Idle(ae.EvolutionEngine):
    def step(self, workspace, observations, history, trial=None) -> StepResult:
        return StepResult(mutated=False, summary="idle")


def test_a_users_own_agent_and_engine_have_no_model_role_to_probe(workspace) -> None:
    (workspace / "manifest.yaml").write_text(MANIFEST.replace("options_fakes.SpendingAgent", "test_preflight.OwnAgent"))
    bench = Bench()
    evolver = ae.Evolver(OwnAgent(workspace), bench, ae.EvolveConfig(batch_size=2), Idle())
    assert evolver.clients == {}
    assert evolver.run(1).cycles_completed == 1
    assert bench.checked == 1


def test_preflight_can_be_turned_off(workspace, monkeypatch) -> None:
    fake = FixedUsageLLM("openai/fake")
    monkeypatch.setattr(factory, "make_provider", lambda ref, **kw: fake)
    bench = Bench("never checked")
    evolver = ae.Evolver(str(workspace), bench, ae.EvolveConfig(preflight=False, batch_size=2, max_cycles=0), "adaptive")
    evolver.run(0)
    assert bench.checked == 0
    phases = [json.loads(line)["phase"] for line in (workspace / "evolution" / "journal.jsonl").read_text().splitlines()]
    assert "baseline" in phases, "the run went ahead without the pre-flight"
