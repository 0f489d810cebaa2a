"""Our skills as strictly valid Agent Skills (`metadata` maps strings to strings) and back: other metadata and stray
top-level keys travel in `metadata` as JSON strings, with the keys listed, so an import restores them exactly."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_evolve.contract.regular_files import copy_tree, read_regular_text
from agent_evolve.contract.skills import Skill, parse_skill, render_skill, validate_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import SkillFormatError, WorkspaceError
from agent_evolve.export.coverage import HOSTS

SKILL_FILE = "SKILL.md"
JSON_KEYS = "agent-evolve-json"  # metadata keys whose string value is JSON of the original value
TOP_KEYS = "agent-evolve-top"  # metadata keys that were top-level frontmatter keys outside the spec


def to_portable(skill: Skill) -> Skill:
    """`skill` with metadata of strings only and no keys outside the spec; raises ValueError on a key clash."""
    metadata: dict[str, str] = {}
    encoded: list[str] = []
    for key, value in [*skill.metadata.items(), *skill.extra.items()]:
        name = str(key)
        if name in metadata or name in (JSON_KEYS, TOP_KEYS):
            raise ValueError(f"metadata key {name!r} is used twice (as a top-level key and in metadata)")
        if isinstance(value, str):
            metadata[name] = value
        else:
            metadata[name] = json.dumps(value, sort_keys=True, default=str)
            encoded.append(name)
    if encoded:
        metadata[JSON_KEYS] = ",".join(encoded)
    if skill.extra:
        metadata[TOP_KEYS] = ",".join(str(key) for key in skill.extra)
    return replace(skill, metadata=metadata, extra={}, path=None)


def from_portable(skill: Skill) -> Skill:
    """The skill `to_portable` was given (its metadata decoded, moved keys back at the top level)."""
    metadata = dict(skill.metadata)
    encoded = set(filter(None, str(metadata.pop(JSON_KEYS, "")).split(",")))
    moved = set(filter(None, str(metadata.pop(TOP_KEYS, "")).split(",")))
    decoded = {k: json.loads(v) if k in encoded else v for k, v in metadata.items()}
    return replace(skill, metadata={k: v for k, v in decoded.items() if k not in moved},
                   extra={k: v for k, v in decoded.items() if k in moved}, path=None)


def skill_file_problems(text: str, folder: str) -> list[str]:
    """Violations of one `SKILL.md` text in a folder named `folder` (unreadable frontmatter is one problem)."""
    try:
        skill = parse_skill(text, f"{folder}/{SKILL_FILE}")
    except SkillFormatError as exc:
        return [str(exc)]
    return validate_skill(skill, folder) + [
        f"metadata {key!r} must map a string to a string" for key, value in skill.metadata.items()
        if not isinstance(value, str)
    ]


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
    skills = {folder: from_portable(parse_skill(read_regular_text(folder / SKILL_FILE), path=folder / SKILL_FILE))
              for folder in folders}
    for folder, skill in skills.items():  # every skill checked before the first is written: all or none
        problems = validate_skill(skill, dir_name=folder.name)
        if problems:
            raise SkillFormatError(f"{folder / SKILL_FILE}: " + "; ".join(problems))
    target = AgentWorkspace(workspace)
    for folder, skill in skills.items():
        target.write_skill(folder.name, render_skill(skill))
        destination = Path(workspace) / "skills" / folder.name
        copy_tree(folder, destination, dirs_exist_ok=True, ignore=shutil.ignore_patterns(SKILL_FILE, "__pycache__"))
    return [folder.name for folder in skills]
