"""The cover guard (pure): a cluster an active skill already covers gets no new skill."""

from __future__ import annotations

from collections.abc import Mapping

from agent_evolve.agents.routing.embedder import Vector
from agent_evolve.algorithms.ratchet.canonical import nearest


def covering_skill(cluster: Vector, skills: Mapping[str, Vector], threshold: float) -> tuple[str, float] | None:
    """The active skill that covers the cluster (cosine >= ``threshold``, the closest), or None."""
    return nearest(cluster, skills, threshold)
