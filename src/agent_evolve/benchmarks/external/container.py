"""Grade a task folder in its container: start it, replay the agent's commands, copy and run the tests."""

from __future__ import annotations

import re
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.benchmarks.external.common import fenced_blocks
from agent_evolve.benchmarks.external.docker import CommandResult, DockerCLI
from agent_evolve.benchmarks.external.pytest_output import parse_pytest_output
from agent_evolve.benchmarks.external.taskdir import TaskDir
from agent_evolve.errors import AgentEvolveError
from agent_evolve.types import Feedback, Trajectory

CONTAINER_TESTS = "/tests"
REWARD_FILE = "/logs/verifier/reward.txt"
DEFAULT_TEST_COMMAND = f"pytest {CONTAINER_TESTS}/test_outputs.py -rA"
SHELL_LANGS = ("bash", "sh", "shell", "")


def extract_commands(trajectory: Trajectory) -> str:
    """The shell commands to replay: `command` fields of the steps, else the shell code blocks of the output."""
    from_steps = [step["command"] for step in trajectory.steps if isinstance(step.get("command"), str)]
    if from_steps:
        return "\n".join(from_steps)
    return "\n".join(block.body for block in fenced_blocks(trajectory.output) if block.lang in SHELL_LANGS)


def feedback_from_test_run(result: CommandResult, reward: float | None, timeout: float) -> Feedback:
    """A Harbor reward file decides when present; else all parsed pytest tests must pass (partial score)."""
    report = parse_pytest_output(result.output)
    raw = {"tests": report.tests, "counts": report.counts, "reward": reward, "exit_code": result.returncode}
    if result.timed_out:
        return Feedback(False, 0.0, f"the tests ran past {timeout:g} s and were stopped; {report.describe()}",
                        raw={**raw, "timed_out": True})
    if reward is not None:
        score = min(max(reward, 0.0), 1.0)
        return Feedback(reward >= 1.0, score, f"reward {reward:g}; {report.describe()}", raw=raw)
    success = report.all_passed
    score = 1.0 if success else (report.passed / report.total if report.total else 0.0)
    return Feedback(success, round(score, 4), report.describe(), raw=raw)


def _slug(text: str) -> str:
    """A Docker-safe lower-case name."""
    return re.sub(r"[^a-z0-9_.-]+", "-", text.lower()).strip("-.") or "task"


@dataclass
class _Running:
    """The container of one grading run and how to stop it."""

    container: str
    compose_args: list[str] = field(default_factory=list)
    compose_env: dict[str, str] = field(default_factory=dict)
    scratch: Path | None = None


@dataclass
class ContainerGrader:
    """Grades TaskDirs with the Docker CLI; images built from a Dockerfile are kept as a cache."""

    docker: DockerCLI
    build_timeout: float = 1800.0
    exclude_skills: bool = False

    def grade(self, task: TaskDir, commands: str) -> Feedback:
        """Start the environment, run the commands, copy the tests in, run them, read the outcome, clean up."""
        self.docker.require()
        running = self._start(task)
        try:
            agent = None
            if commands.strip():
                agent = self.docker.run(["exec", "-i", running.container, "bash", "-s"], input_text=commands,
                                        timeout=task.agent_timeout)
            self._copy_tests(task, running.container)
            result = self._run_tests(task, running.container)
            reward = self._read_reward(running.container)
        finally:
            self._stop(running)
        feedback = feedback_from_test_run(result, reward, task.test_timeout)
        if agent is not None:
            feedback.raw["agent_exit_code"] = agent.returncode
            feedback.raw["agent_timed_out"] = agent.timed_out
        return feedback

    def _fail(self, task: TaskDir, what: str, result: CommandResult) -> AgentEvolveError:
        """The error for an environment that would not start."""
        tail = "\n".join(result.output.strip().splitlines()[-12:])
        return AgentEvolveError(f"{task.id}: {what} failed (exit {result.returncode}):\n{tail}")

    def _start(self, task: TaskDir) -> _Running:
        """Compose for Terminal-Bench tasks with a compose file; else a prebuilt or locally built image."""
        name = f"ae-{_slug(task.id)}-{uuid.uuid4().hex[:8]}"
        use_compose = task.compose_file is not None and (
            task.layout == "terminal-bench" or (task.dockerfile is None and task.docker_image is None))
        if use_compose:
            return self._start_compose(task, name)
        if task.docker_image:
            image = task.docker_image
        elif task.dockerfile is not None:
            image = self._build(task)
        else:
            raise AgentEvolveError(f"{task.id}: no Dockerfile, docker-compose.yaml or docker_image to run it in")
        started = self.docker.run(["run", "-d", "--name", name, image, "sh", "-c", "sleep infinity"],
                                  timeout=self.build_timeout)
        if not started.ok:
            self._stop(_Running(container=name))
            raise self._fail(task, f"`docker run {image}`", started)
        return _Running(container=name)

    def _build(self, task: TaskDir) -> str:
        """Build the task image from its environment folder (without its skills when asked)."""
        tag = f"agent-evolve/{_slug(task.id)}:{'noskills' if self.exclude_skills else 'latest'}"
        context = task.environment_dir
        scratch = None
        if self.exclude_skills and task.skills_dir is not None:
            scratch = Path(tempfile.mkdtemp(prefix="ae-build-"))
            context = scratch / "environment"
            shutil.copytree(task.environment_dir, context)
            shutil.rmtree(context / "skills")
            (context / "skills").mkdir()
        try:
            built = self.docker.run(["build", "-t", tag, str(context)], timeout=self.build_timeout)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        if not built.ok:
            raise self._fail(task, "`docker build`", built)
        return tag

    def _start_compose(self, task: TaskDir, name: str) -> _Running:
        """`docker compose up` with the T_BENCH_* variables Terminal-Bench compose files expect."""
        assert task.compose_file is not None
        scratch = Path(tempfile.mkdtemp(prefix="ae-logs-"))
        (scratch / "logs").mkdir()
        (scratch / "agent-logs").mkdir()
        env = {"T_BENCH_TASK_DOCKER_CLIENT_IMAGE_NAME": f"agent-evolve/{_slug(task.id)}:latest",
               "T_BENCH_TASK_DOCKER_CLIENT_CONTAINER_NAME": f"{name}-{task.compose_service}",
               "T_BENCH_TEST_DIR": CONTAINER_TESTS,
               "T_BENCH_TASK_LOGS_PATH": str(scratch / "logs"), "T_BENCH_CONTAINER_LOGS_PATH": "/logs",
               "T_BENCH_TASK_AGENT_LOGS_PATH": str(scratch / "agent-logs"),
               "T_BENCH_CONTAINER_AGENT_LOGS_PATH": "/agent-logs"}
        compose = ["compose", "-p", name, "-f", str(task.compose_file)]
        running = _Running(container="", compose_args=compose, compose_env=env, scratch=scratch)
        up = self.docker.run([*compose, "up", "-d", "--build"], env=env, timeout=self.build_timeout)
        if not up.ok:
            self._stop(running)
            raise self._fail(task, "`docker compose up`", up)
        found = self.docker.run([*compose, "ps", "-q", task.compose_service], env=env, timeout=60)
        running.container = found.stdout.strip().splitlines()[0] if found.ok and found.stdout.strip() else ""
        if not running.container:
            self._stop(running)
            raise self._fail(task, f"finding the `{task.compose_service}` service container", found)
        return running

    def _copy_tests(self, task: TaskDir, container: str) -> None:
        """Tests enter the container only after the agent's turn, as the original harnesses do."""
        self.docker.run(["exec", container, "mkdir", "-p", CONTAINER_TESTS, "/logs/verifier"], timeout=60)
        if task.tests_dir is not None:
            self.docker.run(["cp", f"{task.tests_dir}/.", f"{container}:{CONTAINER_TESTS}"], timeout=300)
        if task.test_script is not None and task.test_script.parent != task.tests_dir:
            self.docker.run(["cp", str(task.test_script), f"{container}:{CONTAINER_TESTS}/{task.test_script.name}"],
                            timeout=60)

    def _run_tests(self, task: TaskDir, container: str) -> CommandResult:
        """Run the task's test script (or plain pytest) with TEST_DIR set."""
        if task.test_script is not None:
            command = ["bash", f"{CONTAINER_TESTS}/{task.test_script.name}"]
        else:
            command = ["bash", "-c", DEFAULT_TEST_COMMAND]
        return self.docker.run(["exec", "-e", f"TEST_DIR={CONTAINER_TESTS}", container, *command],
                               timeout=task.test_timeout)

    def _read_reward(self, container: str) -> float | None:
        """The Harbor verifier's reward, when the test script wrote one."""
        found = self.docker.run(["exec", container, "cat", REWARD_FILE], timeout=60)
        if not found.ok:
            return None
        try:
            return float(found.stdout.strip())
        except ValueError:
            return None

    def _stop(self, running: _Running) -> None:
        """Remove the container (or the compose project) and the scratch folder."""
        if running.compose_args:
            self.docker.run([*running.compose_args, "down", "-v", "--remove-orphans"], env=running.compose_env,
                            timeout=300)
        elif running.container:
            self.docker.run(["rm", "-f", running.container], timeout=120)
        if running.scratch is not None:
            shutil.rmtree(running.scratch, ignore_errors=True)
