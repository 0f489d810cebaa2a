"""skillopt: SkillOpt's learning-rate-bounded, validation-gated edits to one skill document."""

from agent_evolve.algorithms.skillopt.engine import SkillOptEngine

__all__ = ["SkillOptEngine"]
