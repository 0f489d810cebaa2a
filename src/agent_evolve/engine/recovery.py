"""Recovery at start: what a run of ours killed mid-git-command leaves in the repository.

Two things: a repository whose ``git init`` was cut short (no ``HEAD``, ``objects/`` or ``refs/`` yet, and no
object or ref in it), which git refuses to use, is removed so it is created again; and git creates ``index.lock``, ``HEAD.lock``, ``refs/**.lock`` (and a few more) while it works and deletes them when
it ends; ``kill -9`` of the loop can kill git too, and then every later git command fails until a person deletes
the file. Every git command on a workspace runs under the loop's workspace lock (an ``fcntl`` lock on
``evolution/.lock``), so once a new run holds that lock, no git of ours can be alive there and any lock file is
stale. :func:`recover_git` must therefore only be called while holding the workspace lock.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

_TOP_LEVEL_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "FETCH_HEAD.lock", "config.lock",
                    "packed-refs.lock", "shallow.lock", "objects/maintenance.lock")
_LOCK_TREES = ("refs", "logs")


def stale_git_locks(git_dir: Path) -> list[Path]:
    """The lock files git left in ``git_dir`` (top-level ones and any under ``refs/`` and ``logs/``), sorted."""
    if not git_dir.is_dir():
        return []
    found = [git_dir / name for name in _TOP_LEVEL_LOCKS if (git_dir / name).is_file()]
    for tree in _LOCK_TREES:
        if (git_dir / tree).is_dir():
            found += [p for p in (git_dir / tree).rglob("*.lock") if p.is_file()]
    return sorted(found)


def remove_stale_git_locks(workspace: str | Path) -> list[Path]:
    """Delete the stale git lock files of ``workspace``'s repository and return them. Only under the workspace lock."""
    removed = []
    for lock in stale_git_locks(Path(workspace) / ".git"):
        try:
            lock.unlink()
        except FileNotFoundError:
            continue
        removed.append(lock)
        log.warning("removed a stale git lock left by a killed run: %s", lock)
    return removed


def is_half_initialised(git_dir: Path) -> bool:
    """True for a ``.git`` that ``git init`` did not finish: a part is missing and it holds no object or ref."""
    if not git_dir.is_dir():
        return False
    if (git_dir / "HEAD").is_file() and (git_dir / "objects").is_dir() and (git_dir / "refs").is_dir():
        return False
    holds = [p for tree in ("objects", "refs") for p in (git_dir / tree).rglob("*") if p.is_file()]
    return not holds


def recover_git(workspace: str | Path) -> None:
    """Undo what a killed run left in ``workspace``'s repository. Only under the workspace lock."""
    git_dir = Path(workspace) / ".git"
    if is_half_initialised(git_dir):
        shutil.rmtree(git_dir)
        log.warning("removed a repository whose creation was cut short by a killed run: %s", git_dir)
    remove_stale_git_locks(workspace)
