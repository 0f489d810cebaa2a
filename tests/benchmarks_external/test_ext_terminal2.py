"""Terminal-Bench 2.0: task folders in both layouts, pytest output parsing, and the container grading run."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent_evolve.benchmarks.external.container import ContainerGrader, extract_commands, feedback_from_test_run
from agent_evolve.benchmarks.external.docker import CommandResult, DockerCLI
from agent_evolve.benchmarks.external.pytest_output import parse_pytest_output
from agent_evolve.benchmarks.external.taskdir import find_task_dirs, parse_task_dir
from agent_evolve.benchmarks.terminal2 import Terminal2Benchmark
from agent_evolve.errors import AgentEvolveError, MissingDependencyError
from agent_evolve.types import Task, Trajectory


@dataclass
class FakeDocker(DockerCLI):
    """Records every docker call and answers from a table of argument prefixes."""

    answers: dict[tuple[str, ...], CommandResult] = field(default_factory=dict)
    calls: list[list[str]] = field(default_factory=list)
    inputs: list[str | None] = field(default_factory=list)
    envs: list[Mapping[str, str] | None] = field(default_factory=list)

    def require(self) -> None:
        """The daemon is "there"."""

    def run(self, args: Sequence[str], *, input_text: str | None = None, timeout: float | None = None,
            env: Mapping[str, str] | None = None) -> CommandResult:
        self.calls.append(list(args))
        self.inputs.append(input_text)
        self.envs.append(env)
        for prefix, answer in self.answers.items():
            if tuple(args[: len(prefix)]) == prefix:
                return answer
        return CommandResult(0, "", "")


@pytest.fixture
def tasks_root(fixtures: Path) -> Path:
    return fixtures / "terminal2" / "tasks"


def _output(fixtures: Path, name: str) -> str:
    return (fixtures / "terminal2" / "pytest_outputs" / name).read_text()


def test_terminal_bench_task_yaml(tasks_root: Path) -> None:
    task = parse_task_dir(tasks_root / "hello-world")
    assert task.layout == "terminal-bench" and task.compose_service == "client"
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


def test_not_a_task_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"not a task folder"):
        parse_task_dir(tmp_path)
    assert find_task_dirs(tmp_path) == []


def test_get_tasks_splits_and_hides_tests(tasks_root: Path) -> None:
    bench = Terminal2Benchmark(data_path=str(tasks_root), test_fraction=0.5)
    train, test = bench.get_tasks("train"), bench.get_tasks("test")
    assert len(train) == 1 and len(test) == 1 and {train[0].id, test[0].id} == {"hello-world", "count-lines"}
    assert [t.id for t in Terminal2Benchmark(data_path=str(tasks_root), test_fraction=0.5).get_tasks("test")] == \
        [test[0].id]
    for task in train + test:
        assert "```bash" in task.input and "test_outputs" not in str(task.metadata)


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
    mixed = CommandResult(1, _output(fixtures, "mixed.txt"), "")
    partial = feedback_from_test_run(mixed, None, 60)
    assert not partial.success and partial.score == pytest.approx(2 / 3, abs=1e-4)
    rewarded = feedback_from_test_run(mixed, 0.0, 60)
    assert rewarded.score == 0.0 and rewarded.detail.startswith("reward 0; 2 passed, 1 failed")
    timed_out = feedback_from_test_run(CommandResult(124, "", "", timed_out=True), None, 60)
    assert not timed_out.success and "ran past 60 s" in timed_out.detail


def test_commands_come_from_steps_or_shell_blocks() -> None:
    output = "I'll do it.\n```bash\ncd /app\necho hi > hello.txt\n```\n```python\nprint(1)\n```\n```\nls\n```"
    assert extract_commands(Trajectory("t", output)) == "cd /app\necho hi > hello.txt\n\nls\n"
    steps = [{"tool": "bash", "command": "echo 1"}, {"tool": "think"}, {"command": "echo 2"}]
    assert extract_commands(Trajectory("t", output, steps=steps)) == "echo 1\necho 2"


def test_compose_task_is_graded_in_its_container(tasks_root: Path, fixtures: Path) -> None:
    fake = FakeDocker(purpose="grade terminal2", answers={
        ("compose",): CommandResult(0, "c0ffee\n", ""),
        ("exec", "-e"): CommandResult(0, _output(fixtures, "all_passed.txt"), ""),
        ("exec", "c0ffee", "cat"): CommandResult(1, "", "cat: /logs/verifier/reward.txt: No such file"),
    })
    task = parse_task_dir(tasks_root / "hello-world")
    feedback = ContainerGrader(fake).grade(task, "echo 'Hello, world!' > /app/hello.txt\n")
    verbs = [call[5] if call[0] == "compose" else call[0] for call in fake.calls]
    assert verbs == ["up", "ps", "exec", "exec", "cp", "cp", "exec", "exec", "down"]
    assert fake.calls[0][-3:] == ["up", "-d", "--build"] and fake.calls[1][-3:] == ["ps", "-q", "client"]
    assert fake.calls[2] == ["exec", "-i", "c0ffee", "bash", "-s"]
    assert fake.inputs[2] == "echo 'Hello, world!' > /app/hello.txt\n"
    assert fake.calls[4] == ["cp", f"{tasks_root / 'hello-world' / 'tests'}/.", "c0ffee:/tests"]
    assert fake.calls[5][-1] == "c0ffee:/tests/run-tests.sh"
    assert fake.calls[6] == ["exec", "-e", "TEST_DIR=/tests", "c0ffee", "bash", "/tests/run-tests.sh"]
    env = fake.envs[0]
    assert env is not None and env["T_BENCH_TEST_DIR"] == "/tests" and env["T_BENCH_CONTAINER_LOGS_PATH"] == "/logs"
    assert Path(env["T_BENCH_TASK_LOGS_PATH"]).exists() is False
    assert feedback.success and feedback.score == 1.0 and feedback.raw["reward"] is None
    assert feedback.raw["agent_exit_code"] == 0


def test_dockerfile_task_reads_the_harbor_reward(tasks_root: Path, fixtures: Path) -> None:
    fake = FakeDocker(purpose="grade terminal2", answers={
        ("exec", "-e"): CommandResult(1, _output(fixtures, "mixed.txt"), ""),
        ("exec",): CommandResult(0, "0\n", ""),
    })
    feedback = ContainerGrader(fake).grade(parse_task_dir(tasks_root / "count-lines"), "")
    assert fake.calls[0][:3] == ["build", "-t", "agent-evolve/count-lines:latest"]
    assert fake.calls[1][:2] == ["run", "-d"] and fake.calls[1][-3:] == ["sh", "-c", "sleep infinity"]
    name = fake.calls[1][3]
    assert not any(call[:2] == ["exec", "-i"] for call in fake.calls)
    assert ["exec", "-e", "TEST_DIR=/tests", name, "bash", "/tests/test.sh"] in fake.calls
    assert fake.calls[-1] == ["rm", "-f", name]
    assert not feedback.success and feedback.score == 0.0 and feedback.raw["reward"] == 0.0


def test_failed_build_is_an_error(tasks_root: Path) -> None:
    fake = FakeDocker(purpose="grade terminal2", answers={("build",): CommandResult(1, "", "no space left")})
    with pytest.raises(AgentEvolveError, match=r"(?s)count-lines: `docker build` failed.*no space left"):
        ContainerGrader(fake).grade(parse_task_dir(tasks_root / "count-lines"), "")
    assert [call[0] for call in fake.calls] == ["build"]


def test_failed_compose_up_tears_down(tasks_root: Path) -> None:
    fake = FakeDocker(purpose="grade terminal2", answers={
        ("compose",): CommandResult(1, "", "pull access denied")})
    with pytest.raises(AgentEvolveError, match=r"pull access denied"):
        ContainerGrader(fake).grade(parse_task_dir(tasks_root / "hello-world"), "ls")
    assert [call[5] for call in fake.calls] == ["up", "down"]


def test_missing_docker_cli_is_named(tasks_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)
    bench = Terminal2Benchmark(data_path=str(tasks_root))
    task = Task(id="hello-world", input="")
    with pytest.raises(MissingDependencyError, match=r"Docker CLI `docker` not found: install Docker.*terminal2"):
        bench.evaluate(task, Trajectory(task.id, "```bash\nls\n```"))


def test_stopped_daemon_is_named(tasks_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 1, "", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock")

    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/docker")
    monkeypatch.setattr("subprocess.run", fake_run)
    bench = Terminal2Benchmark(data_path=str(tasks_root))
    with pytest.raises(MissingDependencyError) as err:
        bench.evaluate(Task(id="count-lines", input=""), Trajectory("count-lines", ""))
    assert "Docker daemon not reachable: start Docker" in str(err.value)
    assert "Cannot connect to the Docker daemon" in str(err.value) and "grade terminal2" in str(err.value)


def test_missing_data_says_where_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_EVOLVE_TERMINAL2_DATA", raising=False)
    with pytest.raises(MissingDependencyError) as err:
        Terminal2Benchmark().get_tasks()
    assert "AGENT_EVOLVE_TERMINAL2_DATA" in str(err.value) and "terminal-bench-2" in str(err.value)
