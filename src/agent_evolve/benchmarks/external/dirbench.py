"""The adapter shared by benchmarks whose tasks are folders graded in Docker (Terminal-Bench, SkillsBench)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.benchmarks.external.common import LazyIndex, check_fraction, resolve_path, split_ids, take
from agent_evolve.benchmarks.external.container import ContainerGrader, extract_commands
from agent_evolve.benchmarks.external.docker import DockerCLI
from agent_evolve.benchmarks.external.taskdir import TaskDir, find_task_dirs
from agent_evolve.errors import MissingDependencyError
from agent_evolve.types import Feedback, Task, Trajectory

ANSWER_NOTE = ("\n\nYou work in a Linux container. Answer with the shell commands to run there, in ```bash "
               "blocks; they are run in order in the task's container before its tests.")


class TaskDirBenchmark(BenchmarkAdapter):
    """Tasks are folders under data_path; grading replays the agent's commands and runs the task's tests."""

    env_var: str = ""
    source_hint: str = ""

    def __init__(self, data_path: str | None, seed: int, test_fraction: float, *, build_timeout: float,
                 exclude_skills: bool, docker_binary: str = "docker") -> None:
        self.data_path = resolve_path(data_path, self.env_var)
        self.seed = seed
        self.test_fraction = check_fraction(test_fraction)
        self.grader = ContainerGrader(DockerCLI(purpose=f"grade {self.name}", binary=docker_binary),
                                      build_timeout=build_timeout, exclude_skills=exclude_skills)
        self._index: LazyIndex[TaskDir] = LazyIndex(self._load)

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

    def task_metadata(self, task_dir: TaskDir) -> dict[str, Any]:
        """What the agent may know about the task besides its instruction; the tests stay out."""
        return {"layout": task_dir.layout, "environment_dir": str(task_dir.environment_dir),
                "docker_image": task_dir.docker_image, "agent_timeout_sec": task_dir.agent_timeout,
                **task_dir.metadata}

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        """Tasks of one split, in the seeded order."""
        index = self._index.items()
        ids = take(split_ids(sorted(index), split, self.seed, self.test_fraction), limit)
        return [Task(id=i, input=index[i].instruction + ANSWER_NOTE, metadata=self.task_metadata(index[i]))
                for i in ids]

    def check_ready(self) -> None:
        """The task folders exist and Docker answers (every task is graded in a container)."""
        self._index.items()
        self.grader.docker.require()

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        """Replay the trajectory's commands in the task's container and run its tests (needs Docker)."""
        task_dir = self._index.get(task.id, self.name)
        return self.grader.grade(task_dir, extract_commands(trajectory))
