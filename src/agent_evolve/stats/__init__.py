"""Paired statistics for comparing two arms task by task: the table, the sign test, the bootstrap interval."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["TOLERANCE", "PairedRow", "PairedTable", "lift_summary", "mean", "paired_bootstrap_ci", "sign_test_p"]

TOLERANCE = 1e-9  # two scores closer than this are equal (a tie)


def mean(values: Sequence[float]) -> float:
    """The exactly rounded mean (math.fsum), so the order of the values never changes it; ValueError when empty."""
    if not values:
        raise ValueError("the mean of no values is undefined")
    return math.fsum(values) / len(values)


@dataclass(frozen=True)
class PairedRow:
    """One task's score under the baseline arm and under the candidate arm."""

    task_id: str
    baseline: float
    candidate: float


@dataclass(frozen=True)
class PairedTable:
    """Tasks scored by both arms (sorted by task id) and the tasks only one arm scored."""

    rows: tuple[PairedRow, ...]
    excluded: tuple[str, ...] = ()

    @classmethod
    def pair(cls, baseline: Mapping[str, float], candidate: Mapping[str, float]) -> PairedTable:
        """Pair the tasks present in both mappings; the others are `excluded`. A non-finite score is a ValueError."""
        for arm, scores in (("baseline", baseline), ("candidate", candidate)):
            for task_id, score in scores.items():
                if not math.isfinite(score):
                    raise ValueError(f"task {task_id!r}: {arm} score {score!r} is not a finite number")
        shared = sorted(set(baseline) & set(candidate))
        rows = tuple(PairedRow(t, float(baseline[t]), float(candidate[t])) for t in shared)
        return cls(rows, tuple(sorted(set(baseline) ^ set(candidate))))

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def differences(self) -> tuple[float, ...]:
        return tuple(row.candidate - row.baseline for row in self.rows)

    @property
    def wins(self) -> int:
        """Tasks on which the candidate scored higher than the baseline."""
        return sum(1 for d in self.differences if d > TOLERANCE)

    @property
    def losses(self) -> int:
        return sum(1 for d in self.differences if d < -TOLERANCE)

    @property
    def ties(self) -> int:
        return self.n - self.wins - self.losses

    @property
    def baseline_mean(self) -> float:
        return mean([row.baseline for row in self.rows])

    @property
    def candidate_mean(self) -> float:
        return mean([row.candidate for row in self.rows])

    @property
    def mean_difference(self) -> float:
        """Candidate mean minus baseline mean over the paired tasks (the lift)."""
        return mean(self.differences)


def sign_test_p(wins: int, losses: int) -> float:
    """Exact two-sided sign test (on 0/1 scores, McNemar's) of `wins` against `losses`, each a fair coin under H0:
    twice the binomial tail of the smaller count, capped at 1 (1.0 with no discordant pair). 8-0: 2 / 2**8."""
    if wins < 0 or losses < 0:
        raise ValueError(f"counts must be non-negative, got wins={wins}, losses={losses}")
    n = wins + losses
    if n == 0:
        return 1.0
    term = tail = 1  # C(n, 0), then C(n, i) built incrementally
    for i in range(min(wins, losses)):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(1.0, 2 * tail / 2**n)


def paired_bootstrap_ci(differences: Sequence[float], *, resamples: int = 10_000, level: float = 0.95,
                        seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the mean of per-task differences, resampling whole tasks with replacement (seeded);
    the bounds are symmetric order statistics, so swapping the arms negates and exchanges them exactly."""
    if not differences:
        raise ValueError("a bootstrap interval needs at least one paired task")
    if resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = random.Random(seed)
    n = len(differences)
    means = sorted(mean(rng.choices(differences, k=n)) for _ in range(resamples))
    low = math.floor((1.0 - level) / 2 * (resamples - 1))
    return means[low], means[resamples - 1 - low]


def lift_summary(table: PairedTable, *, resamples: int = 10_000, level: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """The lift of a candidate over a baseline in one JSON-ready record: means, lift, paired bootstrap interval,
    sign-test (McNemar) p-value and the win/loss/tie counts."""
    low, high = paired_bootstrap_ci(table.differences, resamples=resamples, level=level, seed=seed)
    return {"n": table.n, "baseline_mean": table.baseline_mean, "candidate_mean": table.candidate_mean,
            "mean_difference": table.mean_difference, "ci_low": low, "ci_high": high, "ci_level": level,
            "p_value": sign_test_p(table.wins, table.losses), "wins": table.wins, "losses": table.losses,
            "ties": table.ties, "excluded": list(table.excluded)}
