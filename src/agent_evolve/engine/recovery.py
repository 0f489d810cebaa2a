"""Recovery at start: what a run killed mid-git-command leaves in the repository.

A ``git init`` cut short leaves a ``.git`` git refuses to use; a killed git leaves its lock files (``index.lock``,
``refs/**.lock``...), and every later git command fails on them. Every git command of ours runs under the run lock,
so once a new run holds it no git of ours is alive and any lock file is stale: call this only under that lock.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

_TOP_LEVEL_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "FETCH_HEAD.lock", "config.lock",
                    "packed-refs.lock", "shallow.lock", "objects/maintenance.lock")


def stale_git_locks(git_dir: Path) -> list[Path]:
    """The lock files git left in ``git_dir`` (top-level ones and any under ``refs/`` and ``logs/``), sorted."""
    if not git_dir.is_dir():
        return []
    found = [git_dir / name for name in _TOP_LEVEL_LOCKS if (git_dir / name).is_file()]
    for tree in ("refs", "logs"):
        if (git_dir / tree).is_dir():
            found += [p for p in (git_dir / tree).rglob("*.lock") if p.is_file()]
    return sorted(found)


def is_half_initialised(git_dir: Path) -> bool:
    """True for a ``.git`` that ``git init`` did not finish: a part is missing and it holds no object or ref."""
    if not git_dir.is_dir():
        return False
    if (git_dir / "HEAD").is_file() and (git_dir / "objects").is_dir() and (git_dir / "refs").is_dir():
        return False
    return not [p for tree in ("objects", "refs") for p in (git_dir / tree).rglob("*") if p.is_file()]


def recover_git(workspace: str | Path) -> None:
    """Undo what a killed run left in ``workspace``'s repository. Only under the workspace lock."""
    git_dir = Path(workspace) / ".git"
    if is_half_initialised(git_dir):
        shutil.rmtree(git_dir)
        log.warning("removed a repository whose creation was cut short by a killed run: %s", git_dir)
    for lock in stale_git_locks(git_dir):
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
            log.warning("removed a stale git lock left by a killed run: %s", lock)
