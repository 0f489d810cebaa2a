"""The skill bank as one scan: every ``skills/<name>/SKILL.md``, each file version parsed once (by its stamp).

A symlinked skill folder or file is checked with :func:`safe_join` (it may point outside the workspace); plain
entries under a plain ``skills/`` folder cannot leave it, so they skip that path resolution.
"""

from __future__ import annotations

import operator
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.contract.paths import safe_join
from agent_evolve.contract.skills import Skill, cached_skill, validate_skill
from agent_evolve.errors import SkillFormatError, WorkspaceError

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class BankEntry:
    """One skill folder: its parsed skill (shared, read-only; None without a regular SKILL.md) or why it could not
    be read, and the spec rules a readable skill breaks (still listed; validation reports them)."""

    folder: str
    path: Path
    skill: Skill | None = None
    error: str = ""
    problems: tuple[str, ...] = ()


def scan_bank(root: Path) -> tuple[BankEntry, ...]:
    """Every skill folder of the workspace at ``root``, sorted by name; ``_``/``.`` folders and files skipped."""
    skills_dir = os.path.join(root, "skills")
    try:
        plain_dir = stat.S_ISDIR(os.lstat(skills_dir).st_mode)
    except OSError:
        return ()
    if not plain_dir and not os.path.isdir(skills_dir):
        return ()
    with os.scandir(skills_dir) as listing:
        folders = sorted((e for e in listing if not e.name.startswith(("_", ".")) and (e.is_dir() or e.is_symlink())),
                         key=operator.attrgetter("name"))
    return tuple(_entry(root, folder, plain_dir and not folder.is_symlink()) if folder.is_dir() else _broken_link(folder)
                 for folder in folders)


def _broken_link(folder: os.DirEntry[str]) -> BankEntry:
    """A symlink in ``skills/`` whose target is missing or not a folder: listed with its error, never skipped."""
    target = os.readlink(folder.path)
    why = "is not a folder" if os.path.lexists(os.path.join(os.path.dirname(folder.path), target)) else "does not exist"
    return BankEntry(folder.name, Path(folder.path), error=f"{folder.path}: symlink to {target!r}, which {why}")


def _entry(root: Path, folder: os.DirEntry[str], plain: bool) -> BankEntry:
    path = os.path.join(folder.path, SKILL_FILE)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return BankEntry(folder.name, Path(path))
    except OSError as exc:
        return BankEntry(folder.name, Path(path), error=f"{path}: cannot read: {exc.strerror or exc}")
    if stat.S_ISLNK(info.st_mode) or not plain:
        try:
            resolved = safe_join(root, "skills", folder.name, SKILL_FILE)
            path, info = str(resolved), resolved.stat()
        except WorkspaceError as exc:
            return BankEntry(folder.name, Path(path), error=str(exc))
        except OSError:
            return BankEntry(folder.name, Path(path))
    if not stat.S_ISREG(info.st_mode):
        return BankEntry(folder.name, Path(path))
    try:
        skill = cached_skill(path, info)
    except SkillFormatError as exc:
        return BankEntry(folder.name, Path(path), error=str(exc))
    return BankEntry(folder.name, Path(path), skill=skill, problems=tuple(validate_skill(skill, dir_name=folder.name)))
