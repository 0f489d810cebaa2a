"""Re-export at the import path the A-Evolve API names (see `adapters`)."""

from __future__ import annotations

from agent_evolve.benchmarks.adapters.skill_bench import SkillBenchBenchmark

__all__ = ["SkillBenchBenchmark"]
