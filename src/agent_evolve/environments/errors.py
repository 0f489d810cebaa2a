"""Errors of the confinement mechanism."""

from __future__ import annotations

from agent_evolve.errors import AgentEvolveError, MissingDependencyError


class ConfinementError(AgentEvolveError):
    """The confined command could not be started (a mount, a limit or the exec failed); not the command's fault."""


class ConfinementUnavailable(MissingDependencyError):
    """No backend can confine untrusted code here and the user has not opted in to running it unconfined."""
