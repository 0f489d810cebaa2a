"""GEPA's minibatch acceptance: a child is kept only if it beats its parent on the same minibatch tasks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class MinibatchDecision:
    """The decision and the sums that made it."""

    accept: bool
    parent_sum: float
    child_sum: float
    reason: str


class MinibatchImprovement:
    """GEPA's default: the child's score sum over the parent's minibatch tasks must be strictly greater."""

    def decide(self, parent: Mapping[str, float], child: Mapping[str, float]) -> MinibatchDecision:
        missing = sorted(set(parent) - set(child))
        if missing:
            raise ValueError(f"child was not scored on the parent's minibatch tasks {missing[:5]}")
        parent_sum = sum(parent.values())
        child_sum = sum(child[t] for t in parent)
        accept = child_sum > parent_sum
        verdict = "beats" if accept else "does not beat"
        return MinibatchDecision(accept, parent_sum, child_sum, f"child {child_sum:g} {verdict} parent {parent_sum:g}")


def is_perfect(scores: Mapping[str, float], perfect: float = 1.0) -> bool:
    """True when every minibatch task already scores `perfect` (GEPA's skip_perfect_score: nothing to learn)."""
    return bool(scores) and all(s >= perfect for s in scores.values())
