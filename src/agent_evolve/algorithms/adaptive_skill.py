"""Adaptive skill evolution: the adaptive engine restricted to skills (discovery and refinement only).

It seeds template skills for recurring failure kinds, asks the model for new skills where none covers a
failure cluster and for rewrites of skills that were used but rarely solved their tasks, caps skill sizes and
removes near-duplicates. It never edits the prompt or memory, whatever the layer flags allow.
"""

from __future__ import annotations

from typing import ClassVar

from agent_evolve.algorithms.adaptive import AdaptiveEvolutionEngine


class AdaptiveSkillEngine(AdaptiveEvolutionEngine):
    """Skill discovery and refinement on the adaptive machinery."""

    name = "adaptive_skill"
    editable: ClassVar[frozenset[str]] = frozenset({"skills"})
