"""Export a workspace's skills as strictly valid Agent Skills in a host's layout, optionally with its prompt
and memories as a section of the host's instructions file. Every skill is checked before anything is written."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.regular_files import copy_tree, read_regular_text
from agent_evolve.contract.skills import Skill, parse_skill, render_skill
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.errors import ConfigError, SkillFormatError
from agent_evolve.export.hosts import HOSTS, SECTION_BEGIN, SECTION_END, Host
from agent_evolve.export.portable import to_portable
from agent_evolve.export.validator import SKILL_FILE, skill_file_problems


@dataclass(frozen=True)
class ExportResult:
    skills: list[Path]
    instructions: Path | None


def host_named(name: str) -> Host:
    if name not in HOSTS:
        raise ConfigError(f"unknown export target {name!r}; choose one of {', '.join(HOSTS)}")
    return HOSTS[name]


def skill_folders(workspace: Path) -> list[Path]:
    """The workspace's skill folders (drafts and hidden folders excluded), by name."""
    root = workspace / "skills"
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")) and (p / SKILL_FILE).is_file())


def portable_skill(folder: Path) -> Skill:
    """The skill in `folder` made strictly valid; a skill that cannot be is refused, naming it and why."""
    path = folder / SKILL_FILE
    try:
        skill = to_portable(parse_skill(read_regular_text(path), path=path))
    except ValueError as exc:
        raise SkillFormatError(f"cannot export skill {folder.name!r} ({path}): {exc}") from exc
    problems = skill_file_problems(render_skill(skill), folder.name)
    if problems:
        raise SkillFormatError(f"cannot export skill {folder.name!r} ({path}): " + "; ".join(problems))
    return skill


def instructions_section(workspace: AgentWorkspace) -> str:
    """The evolved system prompt and memories as a Markdown section between our markers."""
    lines = [SECTION_BEGIN, "## Evolved instructions (agent-evolve)", "", workspace.read_prompt().strip(), ""]
    memories = workspace.read_all_memories(limit=None)
    if memories:
        lines += ["### Memories", ""]
        lines += [f"- {str(m.get('content', m)).strip()}" for m in memories]
        lines.append("")
    return "\n".join([*lines, SECTION_END]) + "\n"


def merge_section(existing: str, section: str) -> str:
    """`existing` with our section replaced (or appended); the user's own text is kept as it was."""
    start, end = existing.find(SECTION_BEGIN), existing.find(SECTION_END)
    if start != -1 and end > start:
        return existing[:start] + section + existing[end + len(SECTION_END):].lstrip("\n")
    separator = "" if not existing else "\n" if existing.endswith("\n") else "\n\n"
    return existing + separator + section


def export_workspace(workspace: str | Path, host_name: str, target: str | Path, *, with_prompt: bool = False) -> ExportResult:
    """Write every skill of `workspace` under `target` in the host's layout; refuse before writing if one is invalid."""
    source, host = Path(workspace), host_named(host_name)
    prepared = [(folder, portable_skill(folder)) for folder in skill_folders(source)]
    skills_root = Path(target) / host.skills_dir
    written = []
    for folder, skill in prepared:
        destination = skills_root / folder.name
        shutil.rmtree(destination, ignore_errors=True)
        copy_tree(folder, destination, ignore=shutil.ignore_patterns(SKILL_FILE, "__pycache__"))
        atomic_write(destination / SKILL_FILE, render_skill(skill))
        written.append(destination / SKILL_FILE)
    instructions = None
    if with_prompt:
        instructions = Path(target) / host.instructions_file
        existing = read_regular_text(instructions) if instructions.exists() else ""
        atomic_write(instructions, merge_section(existing, instructions_section(AgentWorkspace(source))))
    return ExportResult(written, instructions)
