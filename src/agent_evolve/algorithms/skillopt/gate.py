"""SkillOpt's validation gate as a pure function: a candidate skill is kept only on a strict improvement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

GateAction = Literal["accept_new_best", "accept", "reject"]


@dataclass(frozen=True)
class ValidationDecision:
    """The action and the scores after it: what the engine keeps as current and best."""

    action: GateAction
    candidate_score: float
    current_score: float
    best_score: float
    best_step: int

    @property
    def accepted(self) -> bool:
        return self.action != "reject"


def validation_gate(candidate: float, current: float, best: float, best_step: int, step: int) -> ValidationDecision:
    """Accept when `candidate > current` (strictly); a new best when it also beats `best`."""
    if candidate > current:
        if candidate > best:
            return ValidationDecision("accept_new_best", candidate, candidate, candidate, step)
        return ValidationDecision("accept", candidate, candidate, best, best_step)
    return ValidationDecision("reject", candidate, current, best, best_step)
