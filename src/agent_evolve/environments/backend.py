"""The extension point of confinement: how a backend wraps the launcher in its isolation."""

from __future__ import annotations

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
