"""The short Python API: `ae.evolve(tasks, metric, ...)` on an in-memory task list, with progress, an estimate
before the run, budget presets, and a result whose `agent()` answers new tasks and `save()` keeps it."""

from __future__ import annotations

from agent_evolve.quick.evolve import BUDGETS, evolve
from agent_evolve.quick.result import EvolvedAgent, EvolvedRun, load_agent

__all__ = ["BUDGETS", "EvolvedAgent", "EvolvedRun", "evolve", "load_agent"]
