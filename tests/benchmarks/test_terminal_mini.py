"""terminal-mini: every shipped task folder is valid (its solution passes its tests, the untouched tree fails them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evolve.benchmarks.adapters import dirbench
from agent_evolve.benchmarks.support.taskdir import parse_task_dir
from agent_evolve.benchmarks.suites.terminal_mini import DATA_DIR, TerminalMiniBenchmark
from agent_evolve.environments import CommandResult, open_environment
from agent_evolve.registry import benchmark_class
from agent_evolve.types import Task, Trajectory

TASK_IDS = sorted(p.name for p in DATA_DIR.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def bench() -> TerminalMiniBenchmark:
    return TerminalMiniBenchmark()


def _task(bench: TerminalMiniBenchmark, task_id: str) -> Task:
    return next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == task_id)


def test_the_suite_is_registered_and_in_the_published_layout() -> None:
    assert benchmark_class("terminal-mini") is TerminalMiniBenchmark and len(TASK_IDS) >= 10
    for task_id in TASK_IDS:
        root = DATA_DIR / task_id
        task = parse_task_dir(root)
        assert task.layout == "harbor" and task.dockerfile == root / "environment" / "Dockerfile"
        assert (root / "solution" / "solve.sh").is_file() and task.test_script == root / "tests" / "test.sh"
        assert (root / "tests" / "test_outputs.py").is_file() and task.metadata["difficulty"]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_the_solution_passes_and_the_untouched_environment_fails(bench: TerminalMiniBenchmark, task_id: str) -> None:
    task = _task(bench, task_id)
    with open_environment(bench.environment(task)) as env:
        assert env.workdir == "/app" and env.backend == "local"
        assert not any(path.startswith(("tests/", "solution/", ".tests/")) for path in env.list_files())
        untouched = bench.evaluate_in(task, Trajectory(task.id, ""), env)
    assert not untouched.success and untouched.score < 1.0, untouched.detail
    solution = (DATA_DIR / task_id / "solution" / "solve.sh").read_text()
    solved = bench.evaluate(task, Trajectory(task.id, f"```bash\n{solution}```"))
    assert solved.success and solved.score == 1.0 and solved.raw["agent_exit_code"] == 0, solved.detail


def test_the_agent_reads_no_tests(bench: TerminalMiniBenchmark) -> None:
    for task in bench.get_tasks("train", None) + bench.get_tasks("test", None):
        tests = (DATA_DIR / task.id / "tests" / "test_outputs.py").read_text()
        assert tests not in task.input and "test_outputs" not in repr(task.metadata)
        assert task.metadata["workdir"] == "/app"


def test_splits_are_deterministic(bench: TerminalMiniBenchmark) -> None:
    train, test = bench.get_tasks("train", None), bench.get_tasks("test", None)
    assert sorted(t.id for t in train + test) == TASK_IDS and len(test) == 3
    assert [t.id for t in TerminalMiniBenchmark().get_tasks("test", None)] == [t.id for t in test]


def test_the_docker_backend_builds_the_task_image(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[Path, str, str]] = []

    def build(context: Path, tag: str, purpose: str, timeout_s: float) -> CommandResult:
        built.append((context, tag, purpose))
        return CommandResult(exit_code=0, output="", output_size=0)

    monkeypatch.setattr(dirbench, "build_image", build)
    bench = TerminalMiniBenchmark("docker")
    task = bench.get_tasks("train", 1)[0]
    spec = bench.environment(task)
    assert spec.backend == "docker" and spec.image == f"agent-evolve/{task.id}:latest" and spec.workdir == "/app"
    assert built == [(DATA_DIR / task.id / "environment", spec.image, "terminal-mini tasks")]
