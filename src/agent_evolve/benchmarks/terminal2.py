"""Re-export at the import path the A-Evolve API names (see `adapters`)."""

from __future__ import annotations

from agent_evolve.benchmarks.adapters.terminal2 import Terminal2Benchmark

__all__ = ["Terminal2Benchmark"]
