"""The learner's confinement: skillforge's confined shell plus read-only views of the learning material, the
instructions, `check_spec` and the learner program itself; holdout, validation and test material are never there."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.algorithms.skillforge.bash_tool import ConfinedBash


@dataclass
class LearnerShell(ConfinedBash):
    """A ConfinedBash with larger limits for a CLI agent (its extra read-only mounts and environment are given)."""

    memory_mb: int = 8192
    processes: int = 256
