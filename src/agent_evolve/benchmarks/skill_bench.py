"""SkillsBench: real-world tasks that ship Agent Skills, graded in Docker by each task's tests."""

from __future__ import annotations

from typing import Any

from agent_evolve.benchmarks.external.dirbench import TaskDirBenchmark
from agent_evolve.benchmarks.external.taskdir import TaskDir, list_skills

ENV_VAR = "AGENT_EVOLVE_SKILL_BENCH_DATA"


class SkillBenchBenchmark(TaskDirBenchmark):
    """SkillsBench task folders; with_skills=False grades the no-skills condition (skills left out of the image)."""

    name = "skill-bench"
    env_var = ENV_VAR
    source_hint = ("Get the tasks with `git clone https://github.com/benchflow-ai/skillsbench` "
                   "and pass its tasks/ folder.")

    def __init__(self, data_path: str | None = None, seed: int = 0, test_fraction: float = 0.3, *,
                 with_skills: bool = True, build_timeout: float = 1800.0, docker_binary: str = "docker") -> None:
        self.with_skills = with_skills
        super().__init__(data_path, seed, test_fraction, build_timeout=build_timeout,
                         exclude_skills=not with_skills, docker_binary=docker_binary)

    def task_metadata(self, task_dir: TaskDir) -> dict[str, Any]:
        """Adds the task's bundled skills (name, description, SKILL.md path) when skills are on."""
        metadata = super().task_metadata(task_dir)
        metadata["skills"] = list_skills(task_dir.skills_dir) if self.with_skills else []
        return metadata
