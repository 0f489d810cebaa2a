"""What a user's agent implements: :class:`BaseAgent`."""

from agent_evolve.protocol.base_agent import BaseAgent

__all__ = ["BaseAgent"]
