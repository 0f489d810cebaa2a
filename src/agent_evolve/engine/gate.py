"""The gate: a pure decision whether a candidate workspace replaces the accepted one."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

_EPS = 1e-9


@dataclass(frozen=True)
class GateDecision:
    """The decision and the numbers behind it."""

    action: Literal["accept", "reject"]
    candidate_score: float
    incumbent_score: float
    delta: float
    min_improvement: float
    reason: str

    @property
    def accepted(self) -> bool:
        return self.action == "accept"

    def to_dict(self) -> dict:
        return asdict(self)


def gate(
    candidate_score: float,
    incumbent_score: float,
    *,
    min_improvement: float = 0.0,
    accept_ties: bool = False,
) -> GateDecision:
    """Accept when the candidate beats the incumbent by more than `min_improvement` on the same holdout tasks.

    A candidate exactly `min_improvement` ahead is a tie: kept only when `accept_ties` is set.
    """
    delta = candidate_score - incumbent_score
    if delta > min_improvement + _EPS:
        action, reason = "accept", f"improved by {delta:+.4f} (> {min_improvement:.4f})"
    elif abs(delta - min_improvement) <= _EPS and accept_ties:
        action, reason = "accept", f"tie at {delta:+.4f}, ties accepted"
    elif abs(delta - min_improvement) <= _EPS:
        action, reason = "reject", f"tie at {delta:+.4f}, ties rejected"
    else:
        action, reason = "reject", f"changed by {delta:+.4f} (needs > {min_improvement:.4f})"
    return GateDecision(action, candidate_score, incumbent_score, delta, min_improvement, reason)
