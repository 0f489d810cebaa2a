"""Fresh user, PID, mount and network namespaces through util-linux `unshare`; the launcher builds the root."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.environments.spec import Confinement


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
