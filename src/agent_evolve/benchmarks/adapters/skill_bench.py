"""SkillsBench: real-world tasks that ship Agent Skills; the agent acts in the task's environment, its tests decide."""

from __future__ import annotations

from agent_evolve.benchmarks.adapters.dirbench import TaskDirBenchmark
from agent_evolve.benchmarks.support.taskdir import SKILLS_DIR, TaskDir, list_skills, workdir_of
from agent_evolve.types import Task

ENV_VAR = "AGENT_EVOLVE_SKILL_BENCH_DATA"


class SkillBenchBenchmark(TaskDirBenchmark):
    """SkillsBench task folders, each task's skills installed at `.claude/skills/<name>/` and listed in the input and
    `Task.metadata["skills"]`; with_skills=False grades the no-skills condition (skills left out everywhere)."""

    name = "skill-bench"
    env_var = ENV_VAR
    source_hint = ("Get the tasks with `git clone https://github.com/benchflow-ai/skillsbench` "
                   "and pass its tasks/ folder.")

    def skills_of(self, task_dir: TaskDir) -> list[dict[str, str]]:
        """Name, description and in-environment path of each bundled skill (none in the no-skills condition)."""
        if not self.with_skills:
            return []
        base = f"{workdir_of(task_dir)}/{SKILLS_DIR}"
        return [{"name": s["name"], "description": s["description"],
                 "path": f"{base}/{s['path'].split('/')[-2]}/SKILL.md"} for s in list_skills(task_dir.skills_dir)]

    def to_task(self, task_id: str, task_dir: TaskDir) -> Task:
        """Adds the task's bundled skills, with their paths in the environment, to its metadata and after the
        instruction (read one with its path before you use it)."""
        task = super().to_task(task_id, task_dir)
        skills = self.skills_of(task_dir)
        task.metadata["skills"] = skills
        if skills:
            listed = "\n".join(f"- {s['name']}: {s['description']} ({s['path']})" for s in skills)
            task.input += ("\n\nSkills installed for this task (each a SKILL.md; read the one that fits before you "
                           f"start):\n{listed}")
        return task
