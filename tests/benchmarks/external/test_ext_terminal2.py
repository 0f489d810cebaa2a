"""Terminal-Bench 2.0: task folders in both layouts, pytest output, the backend choice, closed-loop grading."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from agent_evolve.benchmarks.adapters import dirbench
from agent_evolve.benchmarks.support.env_grading import extract_commands, feedback_from_test_run
from agent_evolve.benchmarks.adapters.dirbench import choose_backend
from agent_evolve.benchmarks.support.pytest_output import parse_pytest_output
from agent_evolve.benchmarks.support.taskdir import find_task_dirs, parse_task_dir
from agent_evolve.benchmarks.suites.terminal_mini import DATA_DIR as TERMINAL_MINI
from agent_evolve.benchmarks.adapters.terminal2 import Terminal2Benchmark
from agent_evolve.environments import open_environment
from agent_evolve.environments.task_env import CommandResult as RunResult
from agent_evolve.errors import AgentEvolveError, ConfigError, MissingDependencyError
from agent_evolve.types import Task, Trajectory


@pytest.fixture
def tasks_root(fixtures: Path) -> Path:
    return fixtures / "terminal2" / "tasks"


def _output(fixtures: Path, name: str) -> str:
    return (fixtures / "terminal2" / "pytest_outputs" / name).read_text()


def test_terminal_bench_task_yaml(tasks_root: Path) -> None:
    task = parse_task_dir(tasks_root / "hello-world")
    assert task.layout == "terminal-bench"
    assert task.instruction == 'Create a file called /app/hello.txt. Write "Hello, world!" to it.'
    assert task.agent_timeout == 900.0 and task.test_timeout == 180.0
    assert task.test_script == tasks_root / "hello-world" / "run-tests.sh"
    assert task.compose_file is not None and task.metadata == {
        "difficulty": "easy", "category": "file-operations", "tags": ["file-operations"]}


def test_harbor_task_toml(tasks_root: Path) -> None:
    task = parse_task_dir(tasks_root / "count-lines")
    assert task.layout == "harbor" and task.instruction.startswith("The folder /app/logs holds")
    assert task.test_script == tasks_root / "count-lines" / "tests" / "test.sh"
    assert task.dockerfile == tasks_root / "count-lines" / "environment" / "Dockerfile"
    assert (task.agent_timeout, task.test_timeout) == (600.0, 120.0) and task.metadata["difficulty"] == "medium"


@pytest.mark.parametrize("files, problem", [
    ({}, "not a task folder"), ({"task.yaml": "foo: 1\n"}, "no `instruction`"),
    ({"task.toml": "x = \n", "instruction.md": "do it"}, "cannot read the task folder: Invalid value"),
    ({"task.yaml": "instruction: do it\nmax_agent_timeout_sec: soon\n"}, "cannot read the task folder: could not"),
    ({"task.md": "---\n- a\n---\nbody\n"}, "front matter must be a YAML mapping"),
    ({"task.toml": "", "instruction.md": b"\xff"}, "cannot read the task folder: 'utf-8' codec")])
def test_a_folder_that_is_no_task_or_a_damaged_one_is_a_config_error_naming_it(
    tmp_path: Path, files: dict[str, str | bytes], problem: str
) -> None:
    """A damaged file was a traceback (TOML, UTF-8, a timeout that is not a number), not an error the command
    line reports."""
    for name, content in files.items():
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ConfigError, match=f"^{re.escape(str(tmp_path))}.*{re.escape(problem)}"):
        parse_task_dir(tmp_path)


def test_get_tasks_splits_and_hides_tests(tasks_root: Path) -> None:
    bench = Terminal2Benchmark(data_path=str(tasks_root), test_fraction=0.5)
    train, test = bench.get_tasks("train"), bench.get_tasks("test")
    assert len(train) == 1 and len(test) == 1 and {train[0].id, test[0].id} == {"hello-world", "count-lines"}
    assert [t.id for t in Terminal2Benchmark(data_path=str(tasks_root), test_fraction=0.5).get_tasks("test")] == \
        [test[0].id]
    for task in train + test:
        assert "```bash" not in task.input and "test_outputs" not in str(task.metadata)
        assert task.metadata["workdir"] == "/app"


def test_pytest_all_passed(fixtures: Path) -> None:
    report = parse_pytest_output(_output(fixtures, "all_passed.txt"))
    assert report.all_passed and report.passed == 2 and report.failed == 0 and report.summary_found
    assert report.tests["../tests/test_outputs.py::test_hello_file_content"] == "passed"


def test_pytest_mixed_with_reasons(fixtures: Path) -> None:
    report = parse_pytest_output(_output(fixtures, "mixed.txt"))
    assert (report.passed, report.failed, report.total) == (2, 1, 3) and not report.all_passed
    assert report.failing == ["../tests/test_outputs.py::test_hello_file_content"]
    assert "AssertionError: assert 'Hello world' == 'Hello, world!'" in report.describe()


def test_pytest_verbose_colour_lines(fixtures: Path) -> None:
    report = parse_pytest_output(_output(fixtures, "verbose_colour.txt"))
    assert report.tests == {"/tests/test_outputs.py::test_total_written": "passed",
                            "/tests/test_outputs.py::test_total_value": "failed",
                            "/tests/test_outputs.py::test_optional_gzip": "skipped",
                            "/tests/test_outputs.py::test_known_bug": "xfailed"}
    assert report.counts == {"failed": 1, "passed": 1, "skipped": 1, "xfailed": 1}
    assert report.passed == 2 and report.failed == 1


def test_pytest_collection_error_and_quiet_mode(fixtures: Path) -> None:
    errored = parse_pytest_output(_output(fixtures, "collection_error.txt"))
    assert errored.counts == {"error": 1} and errored.failing == ["../tests/test_outputs.py"]
    assert not errored.all_passed
    quiet = parse_pytest_output(_output(fixtures, "quiet.txt"))
    assert (quiet.passed, quiet.failed) == (2, 1) and quiet.failing == ["tests/test_outputs.py::test_value"]


def test_no_pytest_output_is_not_a_pass() -> None:
    report = parse_pytest_output("bash: pytest: command not found\n")
    assert not report.all_passed and report.describe() == "no pytest results found in the output"


def test_feedback_prefers_the_reward_file(fixtures: Path) -> None:
    mixed = RunResult(1, _output(fixtures, "mixed.txt"), 100)
    partial = feedback_from_test_run(mixed, None, 60)
    assert not partial.success and partial.score == pytest.approx(2 / 3, abs=1e-4)
    rewarded = feedback_from_test_run(mixed, 0.0, 60)
    assert rewarded.score == 0.0 and rewarded.detail.startswith("reward 0; 2 passed, 1 failed")
    timed_out = feedback_from_test_run(RunResult(None, "", 0, timed_out=True), None, 60)
    assert not timed_out.success and "ran past 60 s" in timed_out.detail


def test_commands_come_from_steps_or_shell_blocks() -> None:
    output = "I'll do it.\n```bash\ncd /app\necho hi > hello.txt\n```\n```python\nprint(1)\n```\n```\nls\n```"
    assert extract_commands(Trajectory("t", output)) == "cd /app\necho hi > hello.txt\n\nls\n"
    steps = [{"tool": "bash", "command": "echo 1"}, {"tool": "think"}, {"command": "echo 2"}]
    assert extract_commands(Trajectory("t", output, steps=steps)) == "echo 1\necho 2"


def test_backend_choice() -> None:
    assert choose_backend("auto", True, None) == "docker"
    assert choose_backend("auto", True, "Docker daemon not reachable") == "local"
    assert choose_backend("auto", False, None) == "local"
    assert choose_backend("local", True, None) == "local" and choose_backend("docker", False, "x") == "docker"
    with pytest.raises(ConfigError, match="backend must be one of"):
        Terminal2Benchmark(backend="podman")


def test_without_docker_a_task_runs_in_the_local_backend(tasks_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dirbench, "docker_problem", lambda purpose: "a running Docker daemon is needed")
    bench = Terminal2Benchmark(data_path=str(tasks_root))
    spec = bench.environment(Task(id="count-lines", input=""))
    assert spec.backend == "local" and spec.workdir == "/app" and spec.image is None
    assert list(Path(str(spec.source_dir)).iterdir()) == []
    hello = Path(str(bench.environment(Task(id="hello-world", input="")).source_dir))
    assert list(hello.iterdir()) == [], "the task's own files (tests, solution, Dockerfile) stay out of the tree"


def test_with_docker_the_task_image_is_built_once(tasks_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Path, str, str, float]] = []

    def build(context: Path, tag: str, purpose: str, timeout_s: float) -> RunResult:
        calls.append((context, tag, purpose, timeout_s))
        return RunResult(exit_code=0, output="", output_size=0)

    monkeypatch.setattr(dirbench, "docker_problem", lambda purpose: None)
    monkeypatch.setattr(dirbench, "build_image", build)
    bench = Terminal2Benchmark(data_path=str(tasks_root), build_timeout=90)
    specs = [bench.environment(Task(id="count-lines", input="")) for _ in range(2)]
    assert specs[0] == specs[1] and specs[0].backend == "docker" and specs[0].workdir == "/app"
    assert specs[0].image == "agent-evolve/count-lines:latest" and specs[0].source_dir is None
    context = tasks_root / "count-lines" / "environment"
    assert calls == [(context, "agent-evolve/count-lines:latest", "terminal2 tasks", 90)]


@pytest.mark.parametrize(("built", "said"), [
    (RunResult(exit_code=1, output="Step 2/3 : RUN apt-get\nno space left", output_size=35), "exit 1"),
    (RunResult(exit_code=None, output="Step 2/3 : RUN sleep 99", output_size=23, timed_out=True),
     "timed out after 60 s"),
])
def test_a_failed_build_is_an_error(tasks_root: Path, monkeypatch: pytest.MonkeyPatch, built: RunResult,
                                    said: str) -> None:
    monkeypatch.setattr(dirbench, "build_image", lambda *args: built)
    bench = Terminal2Benchmark(data_path=str(tasks_root), backend="docker", build_timeout=60)
    last_line = re.escape(built.output.splitlines()[-1])
    with pytest.raises(AgentEvolveError, match=rf"(?s)count-lines: `docker build` failed \({said}\).*{last_line}"):
        bench.environment(Task(id="count-lines", input=""))


def test_the_agent_acts_in_the_environment_and_the_tests_decide_there() -> None:
    bench = Terminal2Benchmark(data_path=str(TERMINAL_MINI), backend="local")
    task = next(t for t in bench.get_tasks("train", None) + bench.get_tasks("test", None) if t.id == "config-edit")
    with open_environment(bench.environment(task)) as env:
        assert env.exec("sed -i 's/^port = .*/port = 9090/' server.conf").exit_code == 0
        half = bench.evaluate_in(task, Trajectory(task.id, "submitted"), env)
        assert not half.success and half.raw["backend"] == "local"
        assert env.exec("sed -i 's/^debug = .*/debug = false/' server.conf").exit_code == 0
        done = bench.evaluate_in(task, Trajectory(task.id, "submitted"), env)
    assert done.success and done.score == 1.0 and "1 passed" in done.detail


def test_a_text_answer_is_replayed_in_a_fresh_environment() -> None:
    bench = Terminal2Benchmark(data_path=str(TERMINAL_MINI), backend="local")
    task = Task(id="unique-emails", input="")
    wrong = bench.evaluate(task, Trajectory(task.id, "```bash\nsort -u signups.txt > unique_emails.txt\n```"))
    assert not wrong.success and wrong.raw["agent_exit_code"] == 0


def test_forced_docker_without_the_sdk_names_the_extra(tasks_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "docker", None)
    bench = Terminal2Benchmark(data_path=str(tasks_root), backend="docker")
    with pytest.raises(MissingDependencyError,
                       match=r"docker SDK is needed for terminal2 tasks: pip install 'agent-evolve\[docker\]'"):
        bench.check_ready()
    Terminal2Benchmark(data_path=str(tasks_root)).check_ready()


def test_stopped_daemon_is_named(tasks_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    bench = Terminal2Benchmark(data_path=str(tasks_root), backend="docker")
    with pytest.raises(MissingDependencyError) as err:
        bench.check_ready()
    assert "a running Docker daemon is needed for terminal2 tasks" in str(err.value)
    assert "DOCKER_HOST=unix:///nonexistent/docker.sock" in str(err.value) and "start it" in str(err.value)
    assert Terminal2Benchmark(data_path=str(tasks_root)).backend_for(parse_task_dir(tasks_root / "count-lines")) \
        == "local", "without a daemon, auto runs the task in the local backend"


def test_missing_data_says_where_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_TERMINAL2_DATA", raising=False)
    with pytest.raises(MissingDependencyError) as err:
        Terminal2Benchmark().get_tasks()
    assert "AGENT_EVOLVE_TERMINAL2_DATA" in str(err.value) and "terminal-bench-2" in str(err.value)
