"""What a task folder's environment starts from: its work directory, and the tree the local backend copies (the
Dockerfile folder's files at its last WORKDIR, RUN steps not run; skills at `.claude/skills/<name>/`)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from agent_evolve.benchmarks.support.staging import STAGING_ROOT, build_once, digest_of
from agent_evolve.benchmarks.support.taskdir import TaskDir

DEFAULT_WORKDIR = "/app"
"""The work directory of Terminal-Bench and Harbor images when the Dockerfile names none."""
SKILLS_DIR = ".claude/skills"
"""Where a task's bundled skills are installed in its work tree."""
NOT_COPIED = frozenset({"Dockerfile", "docker-compose.yaml", "docker-compose.yml", ".dockerignore", "skills",
                        "task.yaml", "task.toml", "instruction.md", "task.md", "tests", "verifier", "solution",
                        "solution.sh", "oracle", "run-tests.sh"})
"""Entries of a task's environment folder that are not part of the agent's tree."""
_WORKDIR = re.compile(r"^\s*WORKDIR\s+(\S+)\s*$", re.MULTILINE | re.IGNORECASE)


def workdir_of(task: TaskDir) -> str:
    """The Dockerfile's last absolute WORKDIR, else /app."""
    if task.dockerfile is None:
        return DEFAULT_WORKDIR
    found = [w.rstrip("/") for w in _WORKDIR.findall(task.dockerfile.read_text(encoding="utf-8")) if w.startswith("/")]
    return found[-1] if found and found[-1] else DEFAULT_WORKDIR


def _copy_skills(task: TaskDir, tree: Path) -> None:
    if task.skills_dir is not None:
        shutil.copytree(task.skills_dir, tree / SKILLS_DIR)


def local_tree(task: TaskDir, with_skills: bool, root: Path = STAGING_ROOT) -> Path:
    """A folder (built once) holding the task's starting files and, when asked, its skills under .claude/skills/."""
    sources = [task.environment_dir]
    target = root / f"tree-{task.id}-{digest_of(sources)}-{'skills' if with_skills else 'noskills'}"

    def build(scratch: Path) -> None:
        for entry in sorted(task.environment_dir.iterdir()):
            if entry.name in NOT_COPIED:
                continue
            if entry.is_dir():
                shutil.copytree(entry, scratch / entry.name, symlinks=True)
            else:
                shutil.copy2(entry, scratch / entry.name)
        if with_skills:
            _copy_skills(task, scratch)

    return build_once(target, build)


def skills_tree(task: TaskDir, root: Path = STAGING_ROOT) -> Path | None:
    """A folder (built once) of only the task's skills under .claude/skills/, copied into a container's workdir."""
    if task.skills_dir is None:
        return None
    target = root / f"skills-{task.id}-{digest_of([task.skills_dir])}"
    return build_once(target, lambda scratch: _copy_skills(task, scratch))
