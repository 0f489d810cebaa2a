"""Best so far: the candidate must beat the best holdout score of the run, not only the incumbent."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.engine.acceptance.base import Verdict
from agent_evolve.engine.acceptance.min_improvement import margin_verdict
from agent_evolve.stats import PairedTable


@dataclass(frozen=True)
class BestSoFar:
    """Accept when mean(candidate) exceeds max(best_so_far, mean(incumbent)) by more than `margin`: a candidate that
    only beats a re-measured, weaker incumbent is rejected while an earlier version scored higher."""

    margin: float = 0.0
    accept_ties: bool = False
    name = "best_so_far"
    monotone = True

    def decide(self, table: PairedTable, *, best_so_far: float | None = None) -> Verdict:
        bar = table.baseline_mean if best_so_far is None else max(best_so_far, table.baseline_mean)
        delta = table.candidate_mean - bar
        accepted, reason = margin_verdict(delta, self.margin, self.accept_ties)
        return Verdict(accepted, f"against the best so far ({bar:.4f}): {reason}", "difference_to_best", delta,
                       margin=self.margin)
