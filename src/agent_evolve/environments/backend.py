"""How a backend wraps the launcher in its isolation: the protocol, namespaces (`unshare`), and none at all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from agent_evolve.environments.spec import Confinement


class Backend(Protocol):
    """Puts its isolation around the launcher (the argv in front of it) and says whether the launcher builds the root;
    `confines` is False only for the opt-in unconfined backend."""

    name: str
    confines: bool

    def prefix(self, confinement: Confinement) -> list[str]:
        """The command line in front of `python launcher.py ...` that enters this backend's isolation."""
        ...


@dataclass(frozen=True)
class NamespaceBackend:
    """`unshare` with its own PID (its init's death ends every process in it), mount and network namespaces; `user`
    adds a user namespace (needed without root); `--kill-child` ends it when unshare is killed."""

    unshare: str
    user: bool = True
    name: str = "namespaces"
    confines: bool = True

    def prefix(self, confinement: Confinement) -> list[str]:
        """`unshare [--user --map-root-user] --pid --fork --mount [--net] --kill-child=SIGKILL`."""
        flags = ["--user", "--map-root-user"] if self.user else []
        flags += ["--pid", "--fork", "--mount", "--kill-child=SIGKILL"]
        if not confinement.network:
            flags.append("--net")
        return [self.unshare, *flags]


@dataclass(frozen=True)
class UnconfinedBackend:
    """No isolation, only where the user opts in: limits, an empty environment and a process group, but the whole
    file system, network and process table."""

    name: str = "unconfined"
    confines: bool = False

    def prefix(self, confinement: Confinement) -> list[str]:
        """Nothing in front of the launcher."""
        return []
