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
SYSTEM_PATHS: tuple[str, ...] = (
    "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    *(f"{usr}/{sub}" for usr in ("/usr", "/usr/local")
      for sub in ("bin", "sbin", "lib", "lib32", "lib64", "libx32", "libexec", "share", "include")),
)
"""Read-only in every confined view: programs, the dynamic loader and libraries (not /usr/etc, /usr/local/etc)."""
ETC_PATHS: tuple[str, ...] = ("/etc/ld.so.cache", "/etc/localtime", "/etc/timezone", "/etc/nsswitch.conf",
                              "/etc/host.conf", "/etc/alternatives", "/etc/os-release", "/etc/mime.types")
"""The few host files of /etc that programs read: the loader's cache, time zone, lookup order, `alternatives`."""
NETWORK_ETC_PATHS: tuple[str, ...] = ("/etc/resolv.conf", "/etc/gai.conf", "/etc/ssl/certs", "/etc/ca-certificates",
                                      "/etc/pki/tls/certs", "/etc/pki/ca-trust/extracted")
"""Added where the command has the network: name servers and the public CA certificates."""
SYNTHESIZED_ETC = Path(__file__).with_name("etc")
"""Our own minimal /etc/passwd, /etc/group and /etc/hosts, shown instead of the host's."""
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Mount:
    """One entry of the confined view: `source` bound read-only (`ro`) or writable (`rw`, an overlay whose writes,
    bounded by `Limits.write_mb`, land when the command ends), an empty `tmpfs`, or a writable `scratch` tmpfs."""

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
    """Resource limits of one command, kernel-enforced but for the wall clock and the output cap; `memory_mb` and
    `processes` bound the whole tree where cgroups can be made (`bounds`), `memory_mb` each process too."""

    timeout_s: float = 10.0
    cpu_s: int | None = None
    memory_mb: int = 1024
    processes: int = 64
    file_size_mb: int = 16
    output_bytes: int = 64 * 1024
    max_output_bytes: int = 16 * 2**20
    write_mb: int = 256
    """What the command may write to its writable folders together (an overlay's upper layer on a tmpfs)."""

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
        """The allow-listed system paths and /etc files that exist here, the Python installation, our mounts."""
        listed = (*SYSTEM_PATHS, *ETC_PATHS, *(NETWORK_ETC_PATHS if self.network else ()))
        system = [Mount("ro", p, p) if os.path.islink(p) else Mount.bind(p) for p in listed if os.path.lexists(p)]
        synthesized = [Mount("ro", f"/etc/{f.name}", str(f)) for f in sorted(SYNTHESIZED_ETC.iterdir())]
        return (*system, *synthesized, *python_mounts(), *self.mounts)


def _covered(path: str) -> bool:
    """Whether the system paths already show `path` (or, for /usr itself, the parts an interpreter needs)."""
    return path in ("/", "/usr", "/usr/local") or any(path == s or path.startswith(s + "/") for s in SYSTEM_PATHS)


def python_mounts() -> tuple[Mount, ...]:
    """Read-only binds of this interpreter's installation, so a confined command can run `sys.executable`."""
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    return tuple(Mount.bind(p) for p in sorted(prefixes) if not _covered(p))


def python_executable() -> str:
    """The interpreter to run inside a confined view (symlinks resolved, so it lies inside `python_mounts`)."""
    return os.path.realpath(sys.executable)
