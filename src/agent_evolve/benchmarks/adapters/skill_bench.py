"""SkillsBench: real-world tasks that ship Agent Skills; the agent acts in the task's environment, its tests decide."""

from __future__ import annotations

from typing import Any

from agent_evolve.benchmarks.adapters.dirbench import TaskDirBenchmark
from agent_evolve.benchmarks.support.taskdir import SKILLS_DIR, TaskDir, list_skills, workdir_of

ENV_VAR = "AGENT_EVOLVE_SKILL_BENCH_DATA"


class SkillBenchBenchmark(TaskDirBenchmark):
    """SkillsBench task folders, each task's skills installed at `.claude/skills/<name>/` and listed in the input and
    `Task.metadata["skills"]`; with_skills=False grades the no-skills condition (skills left out everywhere)."""

    name = "skill-bench"
    env_var = ENV_VAR
    source_hint = ("Get the tasks with `git clone https://github.com/benchflow-ai/skillsbench` "
                   "and pass its tasks/ folder.")

    def __init__(self, data_path: str | None = None, seed: int = 0, test_fraction: float = 0.3, *,
                 with_skills: bool = True, backend: str = "auto", build_timeout: float = 1800.0) -> None:
        super().__init__(data_path, seed, test_fraction, build_timeout=build_timeout,
                         exclude_skills=not with_skills, backend=backend)

    def skills_of(self, task_dir: TaskDir) -> list[dict[str, str]]:
        """Name, description and in-environment path of each bundled skill (none in the no-skills condition)."""
        if not self.with_skills:
            return []
        base = f"{workdir_of(task_dir)}/{SKILLS_DIR}"
        return [{"name": s["name"], "description": s["description"],
                 "path": f"{base}/{s['path'].split('/')[-2]}/SKILL.md"} for s in list_skills(task_dir.skills_dir)]

    def task_metadata(self, task_dir: TaskDir) -> dict[str, Any]:
        """Adds the task's bundled skills with their paths in the environment."""
        return {**super().task_metadata(task_dir), "skills": self.skills_of(task_dir)}

    def task_input(self, task_dir: TaskDir) -> str:
        """The instruction, then the skills available for it (read one with its path before you use it)."""
        skills = self.skills_of(task_dir)
        if not skills:
            return task_dir.instruction
        listed = "\n".join(f"- {s['name']}: {s['description']} ({s['path']})" for s in skills)
        return (f"{task_dir.instruction}\n\nSkills installed for this task (each a SKILL.md; read the one that fits "
                f"before you start):\n{listed}")
