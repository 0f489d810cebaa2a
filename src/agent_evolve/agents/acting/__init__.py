"""Agents that act: the tool loop over a task environment (built-in tools, workspace scripts, bounded context)."""

from agent_evolve.agents.acting.env_tools import ActionError, EnvironmentTools, Submission
from agent_evolve.agents.acting.loop import ActingLimits, ActingResult, OutputMode, act
from agent_evolve.agents.acting.replies import ActingClient, calls_in_text, compact

__all__ = ["ActingClient", "ActingLimits", "ActingResult", "ActionError", "EnvironmentTools", "OutputMode",
           "Submission", "act", "calls_in_text", "compact"]
