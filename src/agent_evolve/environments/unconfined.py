"""No isolation: the command runs as this user with only the resource limits. Used only when the user opts in."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.environments.spec import Confinement


@dataclass(frozen=True)
class UnconfinedBackend:
    """Limits, an empty environment and a process group, but the whole file system, network and process table."""

    name: str = "unconfined"
    confines: bool = False

    def prefix(self, confinement: Confinement) -> list[str]:
        """Nothing in front of the launcher."""
        return []
