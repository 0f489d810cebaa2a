"""cli_learner: a coding-agent CLI (Claude Code, Codex or any command) learns from Hermit's learning material."""

from agent_evolve.algorithms.cli_learner.engine import CliLearnerEngine

__all__ = ["CliLearnerEngine"]
