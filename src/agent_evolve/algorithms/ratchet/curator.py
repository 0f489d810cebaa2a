"""The curator's pure decisions: credit, contribution, retirement and bank-cap eviction.

A trial is one routed train attempt; contribution = (successes - failures) / trials, where (the document's credit)
a success is a graded pass and a failure a graded failure, the critic's verdict recorded beside. A skill retires at
>= retire_min_trials and contribution <= retire_threshold; over the cap the lowest is evicted. `do_not_retire`
skills are never retired or evicted, but every decision reports them with their live score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

EPSILON = 1e-9
"""Boundaries are inclusive despite float rounding: a contribution of exactly -0.10 retires (rollback's and the
cosine thresholds' too)."""

CurateAction = Literal["retire", "keep", "protected", "evict"]
CreditWeighting = Literal["outcome", "critic"]


def credit(passed: bool, label: str, weighting: CreditWeighting = "outcome") -> int:
    """+1 for a success, -1 for a failure. `outcome`: the grade alone; `critic`: a pass the critic says HELPED,
    a failure it says HURT, else 0."""
    if weighting == "outcome":
        return 1 if passed else -1
    if passed and label == "HELPED":
        return 1
    if not passed and label == "HURT":
        return -1
    return 0


def contribution(successes: int, failures: int, trials: int) -> float:
    """(successes - failures) / trials; 0 for a skill never routed."""
    return (successes - failures) / trials if trials else 0.0


@dataclass(frozen=True)
class SkillTally:
    """One active skill's routed trials and credits since it was added."""

    name: str
    trials: int
    successes: int
    failures: int
    do_not_retire: bool = False
    created_round: int = 0
    helped: int = 0        # the critic's verdicts on these trials, recorded beside the credit
    hurt: int = 0

    @property
    def contribution(self) -> float:
        return contribution(self.successes, self.failures, self.trials)


@dataclass(frozen=True)
class CurateDecision:
    """What the curator decided for one skill, and the numbers behind it."""

    name: str
    action: CurateAction
    contribution: float
    trials: int
    reason: str
    helped: int = 0
    hurt: int = 0

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "action": self.action, "contribution": round(self.contribution, 4),
                "trials": self.trials, "helped": self.helped, "hurt": self.hurt, "reason": self.reason}


def retirement(stats: Sequence[SkillTally], min_trials: int, threshold: float) -> list[CurateDecision]:
    """One decision per skill: retire, keep, or protected (do_not_retire that would have been retired)."""
    decisions = []
    for s in stats:
        due = s.trials >= min_trials and s.contribution <= threshold + EPSILON
        numbers = (f"contribution {s.contribution:+.3f} over {s.trials} trials "
                   f"(critic: {s.helped} helped, {s.hurt} hurt)")
        action: CurateAction
        if due and s.do_not_retire:
            action, reason = "protected", f"{numbers} would retire it; do_not_retire keeps it"
        elif due:
            action, reason = "retire", f"{numbers}: >= {min_trials} trials and <= {threshold:+.2f}"
        else:
            why = f"fewer than {min_trials} trials" if s.trials < min_trials else f"above {threshold:+.2f}"
            action, reason = "keep", f"{numbers}: {why}"
        decisions.append(CurateDecision(s.name, action, s.contribution, s.trials, reason, s.helped, s.hurt))
    return decisions


def evictions(active: Sequence[SkillTally], cap: int, incoming: int) -> tuple[list[CurateDecision], int]:
    """Skills to evict so ``incoming`` new ones fit under ``cap``, lowest contribution first (ties: older, then
    name), and how many fit: when only `do_not_retire` skills are left, fewer fit and those are reported."""
    over = len(active) + incoming - cap
    if over <= 0:
        return [], incoming
    evictable = sorted((s for s in active if not s.do_not_retire),
                       key=lambda s: (s.contribution, s.created_round, s.name))
    chosen = evictable[:over]
    decisions = [CurateDecision(s.name, "evict", s.contribution, s.trials,
                                f"bank cap {cap}: lowest contribution {s.contribution:+.3f} makes room")
                 for s in chosen]
    if len(chosen) < over:
        decisions += [CurateDecision(s.name, "protected", s.contribution, s.trials,
                                     f"bank cap {cap}: do_not_retire keeps it; fewer new skills fit")
                      for s in active if s.do_not_retire]
    return decisions, max(0, incoming - (over - len(chosen)))
