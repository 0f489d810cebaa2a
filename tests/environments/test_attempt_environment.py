"""An attempt opens the benchmark's environment around solve and grading; one that cannot start is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

import agent_evolve as ae
from agent_evolve.engine.solving import ERROR_KIND_KEY, INFRASTRUCTURE, attempt, is_infrastructure_failure
from agent_evolve.environments import EnvironmentSpec, TaskEnvironment
from agent_evolve.errors import MissingDependencyError
from agent_evolve.protocol.acting import current_environment
from agent_evolve.types import Feedback, Task, Trajectory

MANIFEST = """name: actor
version: 0.1.0
contract_version: "1.0"
agent:
  type: custom
  entrypoint: test_attempt_environment.FixingAgent
evolvable_layers: [prompts]
reload_strategy: hot
"""


class FixingAgent(ae.BaseAgent):
    """Writes the answer file in the bound environment."""

    def solve(self, task: Task) -> Trajectory:
        environment = current_environment()
        assert environment is not None
        environment.write_file("answer.txt", "42\n")
        return Trajectory(task.id, environment.diff())


class FileBenchmark(ae.BenchmarkAdapter):
    """One task whose tree is `source`; graded by a command in the environment the agent acted in."""

    def __init__(self, spec: EnvironmentSpec) -> None:
        self.spec = spec
        self.graded_in: list[str] = []

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return [Task("t1", "write 42 to answer.txt")]

    def environment(self, task: Task) -> EnvironmentSpec | None:
        return self.spec

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        raise AssertionError("an environment task is graded by evaluate_in")

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        result = environment.exec("test \"$(cat answer.txt)\" = 42")
        self.graded_in.append(environment.workdir)
        return Feedback(result.exit_code == 0, float(result.exit_code == 0))


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FixingAgent:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    root = tmp_path / "ws"
    (root / "prompts").mkdir(parents=True)
    (root / "prompts" / "system.md").write_text("act\n")
    (root / "manifest.yaml").write_text(MANIFEST)
    return FixingAgent(root)


def test_the_agent_acts_in_the_environment_and_is_graded_there(agent: FixingAgent, tmp_path: Path) -> None:
    source = tmp_path / "task"
    source.mkdir()
    benchmark = FileBenchmark(EnvironmentSpec(source_dir=str(source)))
    observation = attempt(agent, benchmark, benchmark.get_tasks()[0])
    assert observation.feedback.success and benchmark.graded_in == ["/task"]
    assert "+++ b/answer.txt" in observation.trajectory.output
    assert current_environment() is None


def test_an_environment_that_cannot_start_is_a_recorded_infrastructure_failure(agent: FixingAgent,
                                                                               tmp_path: Path) -> None:
    benchmark = FileBenchmark(EnvironmentSpec(source_dir=str(tmp_path / "missing")))
    observation = attempt(agent, benchmark, benchmark.get_tasks()[0])
    assert is_infrastructure_failure(observation) and not observation.feedback.success
    assert observation.feedback.raw[ERROR_KIND_KEY] == INFRASTRUCTURE
    assert "missing" in observation.feedback.raw["environment_error"]
    assert "environment did not start" in observation.trajectory.steps[0]["error"]


def test_a_fatal_error_opening_the_environment_stops_the_run(agent: FixingAgent,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def no_docker(spec: EnvironmentSpec) -> TaskEnvironment:
        raise MissingDependencyError("the docker backend needs a running Docker daemon")

    monkeypatch.setattr("agent_evolve.engine.solving.open_environment", no_docker)
    benchmark = FileBenchmark(EnvironmentSpec(backend="docker"))
    with pytest.raises(MissingDependencyError, match="Docker"):
        attempt(agent, benchmark, benchmark.get_tasks()[0])
