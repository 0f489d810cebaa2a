"""Strict improvement (the default): the candidate's mean must be higher than the incumbent's."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.engine.acceptance.base import Verdict
from agent_evolve.engine.acceptance.min_improvement import MinImprovement
from agent_evolve.stats import PairedTable


@dataclass(frozen=True)
class StrictImprovement:
    """Accept any higher mean over the shared tasks; an exact tie is kept only with `accept_ties`."""

    accept_ties: bool = False
    name = "strict"
    monotone = True

    def decide(self, table: PairedTable, *, best_so_far: float | None = None) -> Verdict:
        return MinImprovement(0.0, self.accept_ties).decide(table, best_so_far=best_so_far)
