"""Margin rules: the candidate's mean must beat the incumbent's by more than a margin (strict: by anything)."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.engine.acceptance.base import Verdict
from agent_evolve.stats import TOLERANCE, PairedTable


def margin_verdict(delta: float, margin: float, accept_ties: bool) -> tuple[bool, str]:
    """Accept a `delta` above `margin`; a delta exactly at the margin is a tie, kept only with `accept_ties`."""
    if delta > margin + TOLERANCE:
        return True, f"improved by {delta:+.4f} (> {margin:.4f})"
    if abs(delta - margin) <= TOLERANCE:
        return accept_ties, f"tie at {delta:+.4f}, ties {'accepted' if accept_ties else 'rejected'}"
    return False, f"changed by {delta:+.4f} (needs > {margin:.4f})"


@dataclass(frozen=True)
class MinImprovement:
    """Accept when mean(candidate) - mean(incumbent) over the shared tasks exceeds `margin`."""

    margin: float
    accept_ties: bool = False
    name = "min_improvement"
    monotone = True

    def decide(self, table: PairedTable, *, best_so_far: float | None = None) -> Verdict:
        delta = table.mean_difference
        accepted, reason = margin_verdict(delta, self.margin, self.accept_ties)
        return Verdict(accepted, reason, "mean_difference", delta, margin=self.margin)


@dataclass(frozen=True)
class StrictImprovement:
    """The default: accept any higher mean over the shared tasks; an exact tie is kept only with `accept_ties`."""

    accept_ties: bool = False
    name = "strict"
    monotone = True

    def decide(self, table: PairedTable, *, best_so_far: float | None = None) -> Verdict:
        return MinImprovement(0.0, self.accept_ties).decide(table, best_so_far=best_so_far)
