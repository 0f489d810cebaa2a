"""Bank dedup (pure): a drafted skill too close to a bank skill is a duplicate, named back to the synthesizer."""

from __future__ import annotations

from collections.abc import Mapping

from agent_evolve.agents.routing.embedder import Vector
from agent_evolve.algorithms.ratchet.canonical import nearest


def duplicate_of(draft: Vector, bank: Mapping[str, Vector], threshold: float) -> tuple[str, float] | None:
    """The bank skill the draft duplicates (cosine >= ``threshold``, the closest), or None."""
    return nearest(draft, bank, threshold)


def duplicate_feedback(name: str, score: float) -> str:
    """What the synthesizer is told when its draft duplicates a bank skill."""
    return (f"Your draft duplicates the existing skill {name!r} (cosine {score:.2f}). Write a skill for a "
            "different, more specific failure, or one that adds what that skill lacks.")
