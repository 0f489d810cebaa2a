"""Benchmarks whose tasks are folders (Terminal-Bench, SkillsBench, terminal-mini): the agent acts in the task's
environment (docker when it has an image and Docker answers, else local; `backend=` forces one), then the task's
tests run there and decide. A text answer's shell blocks are replayed in a fresh environment first."""

from __future__ import annotations

import re
import shlex
import shutil
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

from agent_evolve.benchmarks.support.common import IndexedBenchmark, Lazy, resolve_path
from agent_evolve.benchmarks.support.env_grading import (TESTS_DIR, extract_commands, feedback_from_test_run,
                                                         folder_files, in_container, prepare_command, put_files,
                                                         split_reward, tests_command)
from agent_evolve.benchmarks.support.taskdir import TaskDir, find_task_dirs, local_tree, skills_tree, workdir_of
from agent_evolve.environments.detect import backend_for_untrusted_code
from agent_evolve.environments.docker_task_client import build_image, connect_docker, docker_problem
from agent_evolve.environments.errors import ConfinementUnavailable
from agent_evolve.environments.task_env import EnvironmentSpec, TaskEnvironment, open_environment
from agent_evolve.errors import AgentEvolveError, ConfigError, MissingDependencyError
from agent_evolve.types import Feedback, Task, Trajectory

BACKEND_CHOICES = ("auto", "local", "docker")


def choose_backend(requested: str, has_image: bool, docker_missing: str | None) -> str:
    """`local` or `docker` for one task: forced, or docker when the task has an image and Docker answers."""
    if requested in ("local", "docker"):
        return requested
    return "docker" if has_image and docker_missing is None else "local"


def _slug(text: str) -> str:
    """A Docker-safe lower-case name."""
    return re.sub(r"[^a-z0-9_.-]+", "-", text.lower()).strip("-.") or "task"


class TaskDirBenchmark(IndexedBenchmark[TaskDir]):
    """Tasks are folders under data_path; each is solved and graded in its own environment."""

    env_var: str = ""
    source_hint: str = ""

    def __init__(self, data_path: str | None = None, seed: int = 0, test_fraction: float = 0.3, *,
                 backend: str = "auto", build_timeout: float = 1800.0, with_skills: bool = True) -> None:
        if backend not in BACKEND_CHOICES:
            raise ConfigError(f"{self.name}: backend must be one of {BACKEND_CHOICES}, got {backend!r}")
        super().__init__(seed, test_fraction)
        self.data_path = resolve_path(data_path, self.env_var)
        self.backend = backend
        self.with_skills = with_skills
        self.build_timeout = build_timeout
        self.purpose = f"{self.name} tasks"
        self._images: dict[str, str] = {}
        self._images_lock = threading.Lock()
        self._docker_missing = Lazy(lambda: docker_problem(self.purpose))  # why Docker is unusable (None: it is)

    def image_for(self, task: TaskDir) -> str:
        """The task's prebuilt `docker_image`, else one built once from its Dockerfile as
        `agent-evolve/<task>:latest` (`:noskills` without its skills); AgentEvolveError when it has neither."""
        if task.docker_image:
            return task.docker_image
        if task.dockerfile is None:
            raise AgentEvolveError(f"{task.id}: no Dockerfile or docker_image to start its container from")
        with self._images_lock:
            if task.id not in self._images:
                self._images[task.id] = self._build_image(task, task.dockerfile)
            return self._images[task.id]

    def _build_image(self, task: TaskDir, dockerfile: Path) -> str:
        """Build the Dockerfile's folder (a copy without the skills folder when asked); AgentEvolveError with the
        log's end when the build fails."""
        tag = f"agent-evolve/{_slug(task.id)}:{'latest' if self.with_skills else 'noskills'}"
        with tempfile.TemporaryDirectory(prefix="ae-build-", ignore_cleanup_errors=True) as scratch:
            context = dockerfile.parent
            if not self.with_skills and (context / "skills").is_dir():
                context = Path(scratch) / "context"
                shutil.copytree(dockerfile.parent, context)
                shutil.rmtree(context / "skills")
                (context / "skills").mkdir()
            built = build_image(context, tag, self.purpose, self.build_timeout)
        if built.exit_code != 0:
            tail = "\n".join(built.output.strip().splitlines()[-12:])
            ending = f"timed out after {self.build_timeout:g} s" if built.timed_out else f"exit {built.exit_code}"
            raise AgentEvolveError(f"{task.id}: `docker build` failed ({ending}):\n{tail}")
        return tag

    def _load(self) -> dict[str, TaskDir]:
        """Find the task folders; a clear error when there is no data."""
        if self.data_path is None or not Path(self.data_path).is_dir():
            where = f"{self.data_path!r} is not a folder" if self.data_path else "no data path given"
            raise MissingDependencyError(
                f"No data for {self.name}: {where}. Pass data_path=... or set {self.env_var} to a folder of "
                f"task folders. {self.source_hint}")
        tasks = find_task_dirs(Path(self.data_path))
        if not tasks:
            raise MissingDependencyError(f"No data for {self.name}: {self.data_path!r} holds no task folder "
                                         f"(task.yaml, task.toml + instruction.md, or task.md). {self.source_hint}")
        return {task.id: task for task in tasks}

    def to_task(self, task_id: str, task_dir: TaskDir) -> Task:
        """The instruction with what the agent may know about the task besides it; the tests stay out."""
        return Task(id=task_id, input=task_dir.instruction, metadata={
            "layout": task_dir.layout, "docker_image": task_dir.docker_image, "workdir": workdir_of(task_dir),
            "agent_timeout_sec": task_dir.agent_timeout, **task_dir.metadata})

    def backend_for(self, task_dir: TaskDir) -> str:
        """The backend this task runs in (see the module docstring)."""
        has_image = task_dir.docker_image is not None or task_dir.dockerfile is not None
        missing = self._docker_missing.value() if self.backend == "auto" and has_image else None
        return choose_backend(self.backend, has_image, missing)

    def environment(self, task: Task) -> EnvironmentSpec:
        """The task's container (docker) or a copy of its starting files (local), at its work directory."""
        task_dir = self._index.get(task.id, self.name)
        workdir = workdir_of(task_dir)
        if self.backend_for(task_dir) == "docker":
            skills = skills_tree(task_dir) if self.with_skills else None
            return EnvironmentSpec(backend="docker", image=self.image_for(task_dir), workdir=workdir,
                                   source_dir=str(skills) if skills is not None else None)
        return EnvironmentSpec(backend="local", source_dir=str(local_tree(task_dir, self.with_skills)),
                               workdir=workdir)

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        """End what the agent left running, copy the task's tests in, run its test script in the environment and
        read the reward (in that same command) or pytest's verdict."""
        task_dir = self._index.get(task.id, self.name)
        files = folder_files(task_dir.tests_dir, TESTS_DIR) if task_dir.tests_dir is not None else {}
        script = task_dir.test_script.name if task_dir.test_script is not None else None
        if task_dir.test_script is not None and task_dir.test_script.parent != task_dir.tests_dir:
            files[f"{TESTS_DIR}/{task_dir.test_script.name}"] = task_dir.test_script.read_bytes()
        container = in_container(environment)
        environment.exec(prepare_command(container), timeout_s=60)
        put_files(environment, files)
        result = environment.exec(tests_command(script, container), timeout_s=task_dir.test_timeout)
        reward, output = split_reward(result.output)
        feedback = feedback_from_test_run(replace(result, output=output), reward, task_dir.test_timeout)
        feedback.raw["backend"] = environment.backend
        return feedback

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """An answer in text: replay its shell commands in a fresh environment, then grade there."""
        task_dir = self._index.get(task.id, self.name)
        with open_environment(self.environment(task)) as environment:
            commands = extract_commands(trajectory)
            agent = (environment.exec(f"bash -c {shlex.quote(commands)}", timeout_s=task_dir.agent_timeout)
                     if commands.strip() else None)
            feedback = self.evaluate_in(task, trajectory, environment)
        if agent is not None:
            feedback.raw.update(agent_exit_code=agent.exit_code, agent_timed_out=agent.timed_out)
        return feedback

    def check_ready(self) -> None:
        """The task folders exist; Docker answers when forced; the local backend confines when a task runs there."""
        tasks = list(self._index.value().values())
        if self.backend == "docker":
            connect_docker(self.purpose).close()
            return
        local = [t for t in tasks if self.backend_for(t) == "local"]
        if not local:
            return
        try:
            backend_for_untrusted_code()
        except ConfinementUnavailable as exc:
            docker = self._docker_missing.value() if self.backend == "auto" else None
            why = f" (Docker is not usable: {docker})" if docker is not None else ""
            raise ConfinementUnavailable(
                f"benchmark {self.name}: {len(local)} of {len(tasks)} tasks run in the local backend{why}, which "
                f"cannot start here: {exc}") from exc
