"""A memory and a pids cgroup per command (below our own cgroup where possible, else the root; v2 or v1), and which
bounds hold without them, with the refusal when none bounds the processes (docs/security.md says which)."""

from __future__ import annotations

import contextlib
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_evolve.environments.errors import ConfinementUnavailable
from agent_evolve.environments.spec import Limits

CGROUP_ROOT = Path("/sys/fs/cgroup")
"""The cgroup mount point: v2 when it holds `cgroup.controllers`, else one v1 hierarchy per controller below it."""
OWN_CGROUPS = Path("/proc/self/cgroup")
CONTROLLERS = ("memory", "pids")
_EMPTY_WAIT_S = 2.0
ALLOW_UNBOUNDED_ENV = "AGENT_EVOLVE_ALLOW_UNBOUNDED"
"""Set to 1 to run a command whose process count nothing bounds (root without a writable pids cgroup)."""
ProcessBound = Literal["cgroup", "rlimit", "none"]


@dataclass(frozen=True)
class TreeCgroups:
    """The cgroups one command runs in (the launcher joins each) and which controllers they bound."""

    paths: tuple[Path, ...] = ()
    memory: bool = False
    pids: bool = False


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def own_paths(listing: str) -> dict[str, str]:
    """This process's cgroup per controller from /proc/self/cgroup text (v2's line under the key '')."""
    paths = {}
    for line in listing.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _parents(base: Path, own: str | None) -> list[Path]:
    """Where a command's cgroup may go: below our own cgroup first, then below the hierarchy's root."""
    below_own = base / own.strip("/") if own and own.strip("/") else None
    return [p for p in (below_own, base) if p is not None and p.is_dir()]


def _make(parent: Path, settings: dict[str, str]) -> Path | None:
    """A fresh cgroup below `parent` with `settings` written (a missing optional file is skipped), or None."""
    path = parent / f"agent-evolve-{uuid.uuid4().hex[:12]}"
    try:
        path.mkdir()
        for name, value in settings.items():
            if not name.startswith("?") or (path / name[1:]).exists():
                (path / name.lstrip("?")).write_text(value)
    except OSError:
        _remove_one(path)  # also when mkdir failed: nothing to remove then
        return None
    return path


def _first(parents: list[Path], settings: dict[str, str]) -> Path | None:
    """The cgroup `_make` makes below the first of `parents` where it can, or None."""
    return next((made for parent in parents if (made := _make(parent, settings)) is not None), None)


def _v2(root: Path, own: dict[str, str], memory_bytes: int, max_pids: int) -> TreeCgroups:
    """One cgroup for both controllers, under a parent that already delegates them (we never enable any)."""
    for parent in _parents(root, own.get("")):
        enabled = set(_read(parent / "cgroup.subtree_control").split()) & set(CONTROLLERS)
        settings = {}
        if "memory" in enabled:
            settings |= {"memory.max": str(memory_bytes), "?memory.swap.max": "0"}
        if "pids" in enabled:
            settings["pids.max"] = str(max_pids)
        made = _make(parent, settings) if settings else None
        if made is not None:
            return TreeCgroups((made,), memory="memory" in enabled, pids="pids" in enabled)
    return TreeCgroups()


def _v1(root: Path, own: dict[str, str], memory_bytes: int, max_pids: int) -> TreeCgroups:
    """A cgroup in the memory hierarchy and one in the pids hierarchy (memsw too, so swap cannot extend it)."""
    memory = _first(_parents(root / "memory", own.get("memory")),
                    {"memory.limit_in_bytes": str(memory_bytes), "?memory.memsw.limit_in_bytes": str(memory_bytes)})
    pids = _first(_parents(root / "pids", own.get("pids")), {"pids.max": str(max_pids)})
    return TreeCgroups(tuple(p for p in (memory, pids) if p is not None), memory=memory is not None,
                       pids=pids is not None)


def create(memory_bytes: int, max_pids: int, root: Path | None = None) -> TreeCgroups:
    """Cgroups bounding a command's whole tree to `memory_bytes` and `max_pids`, as far as this user may make them."""
    root = CGROUP_ROOT if root is None else root
    own = own_paths(_read(OWN_CGROUPS))
    if (root / "cgroup.controllers").exists():
        return _v2(root, own, memory_bytes, max_pids)
    return _v1(root, own, memory_bytes, max_pids)


def _remove_one(path: Path) -> None:
    deadline = time.monotonic() + _EMPTY_WAIT_S
    while _read(path / "cgroup.procs").strip() and time.monotonic() < deadline:  # processes still being reaped
        time.sleep(0.01)
    with contextlib.suppress(OSError):
        path.rmdir()


def remove(groups: TreeCgroups) -> None:
    """Remove a command's cgroups once its processes are gone."""
    for path in groups.paths:
        _remove_one(path)


@dataclass(frozen=True)
class TreeBounds:
    """What bounds a command's whole process tree: its processes, and the memory all of them hold together."""

    processes_by: ProcessBound
    memory_by: Literal["cgroup", "per-process"]
    memory_mb: int | None
    """The most the whole tree can hold: `memory_mb` with a memory cgroup, else `processes x memory_mb`."""


def tree_bounds(limits: Limits, memory_cgroup: bool, pids_cgroup: bool, as_root: bool) -> TreeBounds:
    """The bounds that hold for a command with these cgroups, run by root (kuid 0) or not."""
    processes: ProcessBound = "cgroup" if pids_cgroup else "none" if as_root else "rlimit"
    if memory_cgroup:
        return TreeBounds(processes, "cgroup", limits.memory_mb)
    return TreeBounds(processes, "per-process", None if processes == "none" else limits.processes * limits.memory_mb)


def refuse_unbounded(bounds: TreeBounds, allowed: bool) -> None:
    """Raise ConfinementUnavailable when nothing bounds the processes and the user has not allowed that."""
    if bounds.processes_by == "none" and not allowed:
        raise ConfinementUnavailable(
            "refusing to run the command: as root without a writable pids cgroup nothing bounds how many processes "
            "it starts (RLIMIT_NPROC never limits root), nor so the memory they hold together. Make the pids "
            "controller writable (cgroup v1: /sys/fs/cgroup/pids; v2: /sys/fs/cgroup with `pids` in "
            "cgroup.subtree_control), run as a user other than root, or set "
            f"{ALLOW_UNBOUNDED_ENV}=1 to run it without a process bound at your own risk"
        )
