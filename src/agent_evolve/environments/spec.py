"""What a confined command may see and use: its mounts, environment, network and resource limits."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

MountKind = Literal["ro", "rw", "tmpfs", "scratch"]
SYSTEM_PATHS: tuple[str, ...] = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""Read-only in every confined view: the programs and libraries a command needs, nothing of the user's."""
MASKED_PATHS: tuple[str, ...] = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssl/private",
                                 "/etc/sudoers", "/etc/sudoers.d")
"""Secrets under the system paths, hidden from every view (the command runs as uid 0 without capabilities)."""
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Mount:
    """One entry of the confined view: `source` bound read-only or writable at `target`, or a tmpfs.

    A `tmpfs` is empty and read-only; a `scratch` tmpfs is writable up to `size_mb` and vanishes with the command.
    """

    kind: MountKind
    target: str
    source: str | None = None
    size_mb: int = 0

    @classmethod
    def bind(cls, path: str | Path, writable: bool = False) -> Mount:
        """`path` at the same path inside, read-only unless `writable`."""
        real = os.path.realpath(path)
        return cls("rw" if writable else "ro", real, real)

    @classmethod
    def empty(cls, path: str | Path) -> Mount:
        """An empty, read-only directory over `path`: what was there is not visible."""
        return cls("tmpfs", os.path.realpath(path))

    @classmethod
    def scratch(cls, path: str | Path, size_mb: int) -> Mount:
        """A writable, initially empty folder at `path` of at most `size_mb`; nothing written reaches the disk."""
        return cls("scratch", os.path.abspath(path), size_mb=size_mb)

    @classmethod
    def mask(cls, path: str | Path) -> Mount:
        """Hide `path`: an empty folder over a folder, /dev/null over a file."""
        real = os.path.realpath(path)
        return cls.empty(real) if os.path.isdir(real) else cls("ro", real, os.devnull)


@dataclass(frozen=True)
class Limits:
    """Resource limits of one command; the kernel enforces all but the wall clock and the output cap."""

    timeout_s: float = 10.0
    cpu_s: int | None = None
    memory_mb: int = 1024
    processes: int = 64
    file_size_mb: int = 16
    output_bytes: int = 64 * 1024
    max_output_bytes: int = 16 * 2**20

    def cpu_seconds(self) -> int:
        """CPU time allowed: `cpu_s`, or the wall-clock limit rounded up plus one second."""
        return self.cpu_s if self.cpu_s is not None else math.ceil(self.timeout_s) + 1


@dataclass(frozen=True)
class Confinement:
    """The view and rights of a confined command. Everything not mounted here is absent; only `rw` is writable."""

    mounts: tuple[Mount, ...] = ()
    cwd: str = "/"
    env: Mapping[str, str] = field(default_factory=lambda: {"PATH": DEFAULT_PATH, "LANG": "C.UTF-8"})
    network: bool = False

    def view(self) -> tuple[Mount, ...]:
        """The system paths that exist here (their secrets masked), the Python installation, then our own mounts."""
        system = [Mount.bind(p) for p in SYSTEM_PATHS if os.path.exists(p) and not os.path.islink(p)]
        links = [Mount("ro", p, p) for p in SYSTEM_PATHS if os.path.islink(p)]
        masked = [Mount.mask(p) for p in MASKED_PATHS if os.path.lexists(p)]
        return (*system, *links, *masked, *python_mounts(), *self.mounts)


def python_mounts() -> tuple[Mount, ...]:
    """Read-only binds of this interpreter's installation, so a confined command can run `sys.executable`."""
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    outside = [p for p in sorted(prefixes) if not any(p.startswith(s + "/") or p == s for s in SYSTEM_PATHS)]
    return tuple(Mount.bind(p) for p in outside)


def python_executable() -> str:
    """The interpreter to run inside a confined view (symlinks resolved, so it lies inside `python_mounts`)."""
    return os.path.realpath(sys.executable)
