"""Task-folder images and verdicts: build a task's image from its Dockerfile, read a finished test run into Feedback."""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.benchmarks.support.common import fenced_blocks
from agent_evolve.benchmarks.support.docker import DockerCLI, DockerResult
from agent_evolve.benchmarks.support.pytest_output import parse_pytest_output
from agent_evolve.benchmarks.support.taskdir import TaskDir
from agent_evolve.environments.task_env import CommandResult as RunResult
from agent_evolve.errors import AgentEvolveError
from agent_evolve.types import Feedback, Trajectory

SHELL_LANGS = ("bash", "sh", "shell", "")


def extract_commands(trajectory: Trajectory) -> str:
    """Shell commands of an answer given in text: `command` fields of the steps, else its shell code blocks."""
    from_steps = [step["command"] for step in trajectory.steps if isinstance(step.get("command"), str)]
    if from_steps:
        return "\n".join(from_steps)
    return "\n".join(block.body for block in fenced_blocks(trajectory.output) if block.lang in SHELL_LANGS)


def feedback_from_test_run(result: RunResult, reward: float | None, timeout: float) -> Feedback:
    """A Harbor reward file decides when present; else all parsed pytest tests must pass (partial score)."""
    report = parse_pytest_output(result.output)
    raw = {"tests": report.tests, "counts": report.counts, "reward": reward, "exit_code": result.exit_code}
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
class ImageBuilder:
    """A task's prebuilt `docker_image`, or one built from its Dockerfile as `agent-evolve/<task>:latest` (`:noskills`
    without its skills folder), remembered for the builder's life."""

    docker: DockerCLI
    build_timeout: float = 1800.0
    exclude_skills: bool = False
    _built: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def image_for(self, task: TaskDir) -> str:
        """The prebuilt image, else the built one (built once); AgentEvolveError when the task has neither."""
        if task.docker_image:
            return task.docker_image
        if task.dockerfile is None:
            raise AgentEvolveError(f"{task.id}: no Dockerfile or docker_image to start its container from")
        with self._lock:
            if task.id not in self._built:
                self._built[task.id] = self._build(task, task.dockerfile)
            return self._built[task.id]

    def _build(self, task: TaskDir, dockerfile: Path) -> str:
        """`docker build` of the Dockerfile's folder (a copy without the skills folder when asked)."""
        self.docker.require()
        tag = f"agent-evolve/{_slug(task.id)}:{'noskills' if self.exclude_skills else 'latest'}"
        with tempfile.TemporaryDirectory(prefix="ae-build-", ignore_cleanup_errors=True) as scratch:
            context = dockerfile.parent
            if self.exclude_skills and (context / "skills").is_dir():
                context = Path(scratch) / "context"
                shutil.copytree(dockerfile.parent, context)
                shutil.rmtree(context / "skills")
                (context / "skills").mkdir()
            built = self.docker.run(["build", "-t", tag, str(context)], timeout=self.build_timeout)
        if not built.ok:
            raise _failed(task, "`docker build`", built)
        return tag


def _failed(task: TaskDir, what: str, result: DockerResult) -> AgentEvolveError:
    """The error for an image that would not build, with the end of its output."""
    tail = "\n".join(result.output.strip().splitlines()[-12:])
    return AgentEvolveError(f"{task.id}: {what} failed (exit {result.returncode}):\n{tail}")
