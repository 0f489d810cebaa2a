"""Adaptive skill evolution: the adaptive engine restricted to skills; it never edits the prompt or memory."""

from __future__ import annotations

from typing import ClassVar

from agent_evolve.algorithms.adaptive import AdaptiveEvolutionEngine


class AdaptiveSkillEngine(AdaptiveEvolutionEngine):
    """Skill discovery and refinement on the adaptive machinery."""

    name = "adaptive_skill"
    editable: ClassVar[frozenset[str]] = frozenset({"skills"})
