"""Import Agent Skills (from any host's layout) into a workspace, restoring what the export kept in metadata."""

from __future__ import annotations

import shutil
from pathlib import Path

from agent_evolve.contract.regular_files import copy_tree, read_regular_text
from agent_evolve.contract.skills import parse_skill, render_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import WorkspaceError
from agent_evolve.export.hosts import HOSTS
from agent_evolve.export.portable import from_portable
from agent_evolve.export.validator import SKILL_FILE


def skills_root(source: Path) -> Path:
    """The folder holding the skill folders: a host's skills folder when `source` has one, else `source`."""
    for host in HOSTS.values():
        if host.skills_dir and (source / host.skills_dir).is_dir():
            return source / host.skills_dir
    return source


def import_skills(source: str | Path, workspace: str | Path) -> list[str]:
    """Write every skill found under `source` into `workspace` (validated as the workspace's own); their names."""
    root = skills_root(Path(source))
    folders = sorted(p for p in root.iterdir() if (p / SKILL_FILE).is_file()) if root.is_dir() else []
    if not folders:
        raise WorkspaceError(f"{source}: no skill folders (<name>/{SKILL_FILE}) found")
    target = AgentWorkspace(workspace)
    names = []
    for folder in folders:
        path = folder / SKILL_FILE
        skill = from_portable(parse_skill(read_regular_text(path), path=path))
        target.write_skill(folder.name, render_skill(skill))
        destination = Path(workspace) / "skills" / folder.name
        copy_tree(folder, destination, dirs_exist_ok=True, ignore=shutil.ignore_patterns(SKILL_FILE, "__pycache__"))
        names.append(folder.name)
    return names
