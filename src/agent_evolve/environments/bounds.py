"""Which whole-tree bounds hold for one command, and the refusal when none bounds its processes.

Without a pids cgroup, RLIMIT_NPROC bounds the tree except for root (kuid 0), whose command is refused unless
AGENT_EVOLVE_ALLOW_UNBOUNDED=1; without a memory cgroup only each process is bounded (RLIMIT_AS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent_evolve.environments.errors import ConfinementUnavailable
from agent_evolve.environments.spec import Limits

ALLOW_UNBOUNDED_ENV = "AGENT_EVOLVE_ALLOW_UNBOUNDED"
"""Set to 1 to run a command whose process count nothing bounds (root without a writable pids cgroup)."""
ProcessBound = Literal["cgroup", "rlimit", "none"]


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
