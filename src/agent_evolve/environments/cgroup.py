"""A pids cgroup per command, where this user may create one: a process limit that counts only that command.

RLIMIT_NPROC counts a user's processes and never limits root (uid 0, in any user namespace mapped onto it), so
as root the limit comes from the cgroup's `pids.max`. The launcher moves itself into the cgroup before it starts
the command; the parent removes the (then empty) cgroup afterwards. Where none can be made, RLIMIT_NPROC alone.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

HIERARCHIES: tuple[Path, ...] = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))
"""cgroup v1's pids hierarchy, then the v2 unified one (used where it offers the pids controller)."""


def _pids_hierarchy() -> Path | None:
    for base in HIERARCHIES:
        v1 = (base / "pids.max").exists() or base.name == "pids"
        v2 = "pids" in _read(base / "cgroup.subtree_control").split()
        if (base / "cgroup.procs").exists() and (v1 or v2) and os.access(base, os.W_OK):
            return base
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def create(max_pids: int) -> Path | None:
    """A fresh cgroup limited to `max_pids` processes, or None where this user cannot make one."""
    base = _pids_hierarchy()
    if base is None:
        return None
    path = base / f"agent-evolve-{uuid.uuid4().hex[:12]}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(max_pids))
    except OSError:
        remove(path)
        return None
    return path


def remove(path: Path | None) -> None:
    """Remove a cgroup once its processes are gone (a no-op for None)."""
    if path is not None:
        with contextlib.suppress(OSError):
            path.rmdir()
