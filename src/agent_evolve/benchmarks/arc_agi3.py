"""Re-export at the import path the A-Evolve API names (see `adapters`)."""

from __future__ import annotations

from agent_evolve.benchmarks.adapters.arc_agi3 import ArcAgi3Benchmark

__all__ = ["ArcAgi3Benchmark"]
