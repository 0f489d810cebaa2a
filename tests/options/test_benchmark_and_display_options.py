"""Options that reach benchmarks and displays: the jsonl grader, --subset everywhere, hard-subset probes, doctor,
and plain progress lines when stdout is not a terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from rich.console import Console

import agent_evolve as ae
from agent_evolve.api import resolve_benchmark
from agent_evolve.benchmarks.support.hard_subset import select_hard_subset
from agent_evolve.benchmarks.adapters.subset_view import SubsetView
from agent_evolve.cli.doctor import CheckRow, render
from agent_evolve.cli.main import cli
from agent_evolve.cli.progress import LiveProgress
from agent_evolve.cli.run import probe_solvers
from agent_evolve.engine.loop import ARM_PHASE, TEST_PHASE, ProgressEvent
from agent_evolve.errors import ConfigError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.registry import seed_path
from agent_evolve.types import Feedback, Task, Trajectory

TERMINAL2_TASKS = Path(__file__).resolve().parents[1] / "benchmarks" / "external" / "fixtures" / "terminal2" / "tasks"


@pytest.fixture
def numeric_tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "input": f"{i}+1", "answer": str(i + 1)}) + "\n"
                            for i in range(10)))
    return path


def test_jsonl_takes_a_grader_from_the_config_and_the_command_line(numeric_tasks: Path, tmp_path: Path) -> None:
    task = Task(id="q3", input="3+1")
    answer = Trajectory(task_id="q3", output="The answer is 4.0")
    assert not resolve_benchmark(f"jsonl:{numeric_tasks}").evaluate(task, answer).success, "exact is the default"
    assert resolve_benchmark(f"jsonl:{numeric_tasks}", grader="numeric").evaluate(task, answer).success
    config_file = tmp_path / "c.yaml"
    config_file.write_text(yaml.safe_dump({"grader": "numeric"}))
    evolver = ae.Evolver(str(seed_path("jsonl")), f"jsonl:{numeric_tasks}", str(config_file), "adaptive",
                         workspace_dir=str(tmp_path / "ws"))
    assert evolver.benchmark.evaluate(task, answer).success
    with pytest.raises(ConfigError, match="takes no grader"):
        resolve_benchmark(f"terminal2:{TERMINAL2_TASKS}", grader="numeric")


def test_subset_works_on_an_external_benchmark(tmp_path: Path) -> None:
    full = resolve_benchmark(f"terminal2:{TERMINAL2_TASKS}")
    every = [t.id for t in full.get_tasks("train", None) + full.get_tasks("test", None)]
    subset_file = tmp_path / "subset.json"
    subset_file.write_text(json.dumps({"train": [], "test": [every[0]]}))
    narrowed = resolve_benchmark(f"terminal2:{TERMINAL2_TASKS}", subset=str(subset_file))
    assert isinstance(narrowed, SubsetView) and narrowed.name == "terminal2"
    assert [t.id for t in narrowed.get_tasks("test", None)] == [every[0]]
    assert narrowed.get_tasks("train", None) == []
    subset_file.write_text(json.dumps({"train": ["no-such-task"], "test": []}))
    with pytest.raises(ConfigError, match="unknown task ids"):
        resolve_benchmark(f"terminal2:{TERMINAL2_TASKS}", subset=str(subset_file)).get_tasks("train")


def test_hard_subset_probes_get_their_own_seed_and_sample(tmp_path: Path) -> None:
    config = ae.EvolveConfig()
    solvers = probe_solvers(seed_path("gsm8k"), config, k=3, seed=1, temperature=0.7)
    agents = [solve.__self__ for solve in solvers]
    assert len({id(a) for a in agents}) == 3
    assert [a.llm.inner.seed for a in agents] == [3, 4, 5], "every probe has its own sampling seed"
    assert all(a.settings.temperature == 0.7 for a in agents), "probes sample, so they can differ"
    assert len({id(a.llm.ledger) for a in agents}) == 1
    pinned = probe_solvers(seed_path("gsm8k"), ae.EvolveConfig(agent_temperature=0.2), k=2, seed=0, temperature=0.7)
    assert [s.__self__.settings.temperature for s in pinned] == [0.2, 0.2]


def test_hard_subset_scores_each_probe_with_its_own_solver() -> None:
    class Bench(ae.BenchmarkAdapter):
        name = "b"

        def get_tasks(self, split="train", limit=10):
            return [Task(id=f"{split}-{i}", input="x") for i in range(2)]

        def evaluate(self, task, trajectory):
            return Feedback(trajectory.output == "right", 1.0 if trajectory.output == "right" else 0.0)

    solvers = [lambda t: Trajectory(t.id, "right"), lambda t: Trajectory(t.id, "wrong"),
               lambda t: Trajectory(t.id, "right")]
    subset = select_hard_subset(solvers, Bench(), k=3)
    assert subset["meta"]["pass_rates"] == {"train-0": 2 / 3, "train-1": 2 / 3, "test-0": 2 / 3, "test-1": 2 / 3}
    with pytest.raises(ConfigError, match="2 solvers given for k=3"):
        select_hard_subset(solvers[:2], Bench(), k=3)


def test_doctor_keeps_square_brackets_in_its_text() -> None:
    console = Console(file=io.StringIO(), width=300, force_terminal=False)
    render([CheckRow("llama-cpp-python", "import", "missing", "no module [x]", "pip install 'agent-evolve[local]'")],
           console)
    text = console.file.getvalue()
    assert "agent-evolve[local]" in text and "no module [x]" in text


def test_progress_is_plain_lines_when_stdout_is_not_a_terminal() -> None:
    out = io.StringIO()
    progress = LiveProgress(Console(file=out, force_terminal=False), 2, UsageLedger())
    with progress:
        progress(ProgressEvent(0, "baseline", total=4))
        for done in range(1, 5):
            progress(ProgressEvent(0, "baseline", done=done, total=4))
        progress(ProgressEvent(1, "solve", total=25))
        for done in range(1, 26):
            progress(ProgressEvent(1, "solve", done=done, total=25))
        progress(ProgressEvent(1, "recorded", score=0.5, message="accepted: a rule; holdout score 0.500"))
    lines = out.getvalue().splitlines()
    phases = [line.split(" | ")[1] for line in lines[:-1]]
    assert phases == [f"scoring the starting workspace on the holdout {n}/4 tasks" for n in (0, 4)] + [
        f"solving train tasks {n}/25 tasks" for n in (0, 10, 20, 25)], "a line per phase, every 10 tasks, at the end"
    assert all(line.endswith("s") and "0 tokens" in line for line in lines[:-1])
    assert lines[-1] == "cycle 1/2 accepted: a rule; holdout score 0.500"


def test_each_experiment_arm_starts_a_fresh_display_named_after_it() -> None:
    out = io.StringIO()
    progress = LiveProgress(Console(file=out, force_terminal=False), 4)
    progress(ProgressEvent(0, ARM_PHASE, message="control seed 0"))
    progress(ProgressEvent(1, "recorded", score=0.5, message="rejected: a rule (tie); holdout score 0.500 kept"))
    progress(ProgressEvent(0, ARM_PHASE, message="evolved seed 1"))
    progress(ProgressEvent(0, "baseline", total=40))
    progress(ProgressEvent(0, TEST_PHASE, total=120))
    assert out.getvalue().splitlines()[:4] == [
        "== control seed 0 ==", "control seed 0 | cycle 1/4 rejected: a rule (tie); holdout score 0.500 kept",
        "== evolved seed 1 ==",
        "evolved seed 1 | cycle 0/4 | scoring the starting workspace on the holdout 0/40 tasks | 0s"]
    assert out.getvalue().splitlines()[4] == "evolved seed 1 | scoring on the test split 0/120 tasks | 0s", (
        "no cycle and no holdout score outside the loop; the last arm's score is gone")


def test_the_run_command_prints_progress_lines_to_a_pipe(tmp_path: Path, monkeypatch) -> None:
    from agent_evolve.registry import ENGINE_REGISTRY

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "cli"))
    monkeypatch.setitem(ENGINE_REGISTRY, "shout", "cli_fakes.ShoutEngine")
    workspace = tmp_path / "agent"
    (workspace / "prompts").mkdir(parents=True)
    (workspace / "prompts" / "system.md").write_text("quiet\n")
    (workspace / "manifest.yaml").write_text(
        'name: w\ncontract_version: "1.0"\nagent: {type: custom, entrypoint: cli_fakes.LastWordAgent}\n'
        "evolvable_layers: [prompts]\n")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"q{i}", "input": f"say w{i}", "answer": f"W{i}"}) + "\n"
                             for i in range(20)))
    result = CliRunner().invoke(cli, ["run", "--agent", str(workspace), "--benchmark", f"jsonl:{tasks}", "--engine",
                                      "shout", "--cycles", "1", "--batch-size", "4", "--holdout-limit", "3"])
    assert result.exit_code == 0, result.output
    assert "cycle 0/1 | scoring the starting workspace on the holdout" in result.output
    assert "cycle 1/1 | solving train tasks 4/4 tasks" in result.output
