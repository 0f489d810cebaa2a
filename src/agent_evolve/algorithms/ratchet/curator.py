"""The curator's and the rollback's pure decisions: credit, contribution, retirement, bank-cap eviction and the
persistence-gated rollback with its restore plan (the rules are in docs/ratchet.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agent_evolve.algorithms.ratchet.records import RatchetSkill

EPSILON = 1e-9
"""Boundaries are inclusive despite float rounding: a contribution of exactly -0.10 retires (rollback's and the
cosine thresholds' too)."""

CurateAction = Literal["retire", "keep", "protected", "evict"]
CreditWeighting = Literal["outcome", "critic"]


def credit(passed: bool, label: str, weighting: CreditWeighting = "outcome") -> int:
    """+1 for a success, -1 for a failure. `outcome`: the grade alone; `critic`: a pass the critic says HELPED,
    a failure it says HURT, else 0."""
    if weighting == "outcome" or label == ("HELPED" if passed else "HURT"):
        return 1 if passed else -1
    return 0


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
        """(successes - failures) / trials; 0 for a skill never routed."""
        return (self.successes - self.failures) / self.trials if self.trials else 0.0


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
        return {**dataclasses.asdict(self), "contribution": round(self.contribution, 4)}


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


@dataclass(frozen=True)
class RollbackState:
    """The best held-out score so far, its round, and the current run of regressed rounds."""

    best_score: float | None = None
    best_round: int = 0
    regressed: int = 0


@dataclass(frozen=True)
class RollbackDecision:
    """Whether to restore the bank of `restore_round`, the state after this round, and why."""

    restore: bool
    restore_round: int | None
    state: RollbackState
    reason: str


def rollback_check(state: RollbackState, round_: int, score: float, threshold: float,
                   consecutive: int) -> RollbackDecision:
    """The rollback decision after round ``round_`` scored ``score`` on the holdout: a restore after `consecutive`
    rounds in a row more than `threshold` below the best; any other round, and a restore, resets the counter."""
    if state.best_score is None or score > state.best_score:
        return RollbackDecision(False, None, RollbackState(score, round_, 0), f"new best {score:.3f}")
    gap = state.best_score - score
    if gap <= threshold + EPSILON:
        return RollbackDecision(False, None, RollbackState(state.best_score, state.best_round, 0), f"{score:.3f} "
                                f"within {threshold:.2f} of the best {state.best_score:.3f}: counter reset")
    regressed = state.regressed + 1
    if regressed < consecutive:
        return RollbackDecision(False, None, RollbackState(state.best_score, state.best_round, regressed),
                                f"{score:.3f} is {gap:.3f} below the best: regressed {regressed} of {consecutive}")
    return RollbackDecision(True, state.best_round, RollbackState(state.best_score, state.best_round, 0),
                            f"{consecutive} rounds in a row more than {threshold:.2f} below the best "
                            f"{state.best_score:.3f} (round {state.best_round}): restore its bank")


@dataclass(frozen=True)
class RestorePlan:
    """What a rollback writes: the skills restored as the best round had them, and the active skills it drops or
    keeps because they are locked (`do_not_retire`)."""

    restored: list[RatchetSkill]
    dropped: list[str]
    kept_locked: list[str]


def restore_plan(best_bank: Sequence[RatchetSkill], current: Sequence[RatchetSkill], best_round: int,
                 round_: int) -> RestorePlan:
    """The best round's bank, ACTIVE, each skill as it was then with the user's current `do_not_retire` and the
    rounds since (`best_round + 1` to `round_`) not its trials; every other active skill dropped unless locked."""
    now, wanted = {s.name: s for s in current}, {s.name for s in best_bank}
    span = [best_round + 1, round_]
    restored = []
    for skill in best_bank:
        latest = now.get(skill.name, skill)
        uncounted = [*latest.uncounted_rounds, *([span] if span not in latest.uncounted_rounds else [])]
        restored.append(dataclasses.replace(skill, status="ACTIVE", do_not_retire=latest.do_not_retire,
                                            uncounted_rounds=uncounted))
    active = [s for s in current if s.status == "ACTIVE" and s.name not in wanted]
    return RestorePlan(restored, [s.name for s in active if not s.do_not_retire],
                       [s.name for s in active if s.do_not_retire])
