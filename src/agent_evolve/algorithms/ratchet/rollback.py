"""Persistence-gated rollback, pure: after `consecutive` rounds in a row more than `threshold` below the best
held-out pass@1, the best round's bank is restored with its state (`restore_plan`); any other round, and a
restore, resets the counter: a persistence gate, not a trend check.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from agent_evolve.algorithms.ratchet.curator import EPSILON
from agent_evolve.algorithms.ratchet.records import RatchetSkill


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


def check(state: RollbackState, round_: int, score: float, threshold: float, consecutive: int) -> RollbackDecision:
    """The rollback decision after round ``round_`` scored ``score`` on the holdout."""
    if state.best_score is None or score > state.best_score:
        return RollbackDecision(False, None, RollbackState(score, round_, 0), f"new best {score:.3f}")
    gap = state.best_score - score
    if gap <= threshold + EPSILON:
        return RollbackDecision(False, None, RollbackState(state.best_score, state.best_round, 0),
                                f"{score:.3f} within {threshold:.2f} of the best {state.best_score:.3f}: counter reset")
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
    """Restore the best round's bank with its state: each of its skills ACTIVE with the version it had then and its
    trials as they were (the rounds after the best one, up to this one, no longer count for it), keeping the
    user's current `do_not_retire`; drop every other active skill except the locked ones."""
    now = {s.name: s for s in current}
    wanted = {s.name for s in best_bank}
    restored = []
    for skill in best_bank:
        latest = now.get(skill.name, skill)
        span = [best_round + 1, round_]
        uncounted = [*latest.uncounted_rounds, *([span] if span not in latest.uncounted_rounds else [])]
        restored.append(dataclasses.replace(skill, status="ACTIVE", do_not_retire=latest.do_not_retire,
                                            uncounted_rounds=uncounted))
    active = [s for s in current if s.status == "ACTIVE" and s.name not in wanted]
    return RestorePlan(restored, [s.name for s in active if not s.do_not_retire],
                       [s.name for s in active if s.do_not_retire])
