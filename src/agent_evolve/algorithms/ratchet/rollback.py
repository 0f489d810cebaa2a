"""Persistence-gated rollback: a pure decision over each round's held-out pass@1.

A round regresses when its score is more than `threshold` below the best so far. After `consecutive` regressed
rounds in a row the best round's bank is restored (and that round skips synth and curate); any round that is not
regressed resets the counter: a persistence gate, not a trend check. A restore resets the counter too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

EPSILON = 1e-9


@dataclass(frozen=True)
class RollbackState:
    """The best held-out score so far, its round, and the current run of regressed rounds."""

    best_score: float | None = None
    best_round: int = 0
    regressed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RollbackState:
        return cls(**data)


@dataclass(frozen=True)
class RollbackDecision:
    """Whether to restore the bank of `restore_round`, the state after this round, and why."""

    restore: bool
    restore_round: int | None
    state: RollbackState
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"restore": self.restore, "restore_round": self.restore_round, "state": self.state.to_dict(),
                "reason": self.reason}


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
