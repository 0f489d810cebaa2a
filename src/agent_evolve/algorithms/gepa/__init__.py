"""gepa: GEPA's reflective, Pareto-guided search over workspace texts, one iteration per cycle."""

from agent_evolve.algorithms.gepa.engine import GepaEngine

__all__ = ["GepaEngine"]
