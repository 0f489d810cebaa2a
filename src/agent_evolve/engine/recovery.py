"""Recovery at start: git lock files left behind by a run of ours that was killed mid-command.

git creates ``index.lock``, ``HEAD.lock``, ``refs/**.lock`` (and a few more) while it works and deletes them when
it ends; ``kill -9`` of the loop can kill git too, and then every later git command fails until a person deletes
the file. Every git command on a workspace runs under the loop's workspace lock (an ``fcntl`` lock on
``evolution/.lock``), so once a new run holds that lock, no git of ours can be alive there and any lock file is
stale. :func:`remove_stale_git_locks` must therefore only be called while holding the workspace lock.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)

_TOP_LEVEL_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "FETCH_HEAD.lock", "config.lock",
                    "packed-refs.lock", "shallow.lock")
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
