"""SkillOpt's learning rate: the most skill edits one step may apply, decaying when the step count is known.

Same formulas as the `skillopt` package's schedulers (`constant`, `linear`, `cosine` from `max_lr` to
`min_lr` over `total_steps`, 1-indexed steps); without `total_steps` the rate stays at `max_lr`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agent_evolve.errors import ConfigError

MODES: tuple[str, ...] = ("constant", "linear", "cosine")


@dataclass(frozen=True)
class LearningRate:
    """Edits per step: `max_lr` at the start, `min_lr` at `total_steps` (when known)."""

    max_lr: int = 4
    min_lr: int = 2
    total_steps: int | None = None
    mode: str = "cosine"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"skillopt: unknown lr_schedule {self.mode!r}; known: {list(MODES)}")
        if not 1 <= self.min_lr <= self.max_lr:
            raise ConfigError(f"skillopt: need 1 <= min_lr <= max_lr, got {self.min_lr} and {self.max_lr}")

    def at(self, step: int) -> int:
        """The edit cap of 1-indexed `step`."""
        if self.mode == "constant" or not self.total_steps or self.total_steps <= 1:
            return self.max_lr
        t = min(step, self.total_steps) / self.total_steps
        if self.mode == "linear":
            rate = self.max_lr + (self.min_lr - self.max_lr) * t
        else:
            rate = self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (1 + math.cos(math.pi * t))
        return max(self.min_lr, round(rate))
