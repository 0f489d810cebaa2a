"""The paired per-task table: each task scored by both arms, with wins, losses, ties and the mean difference."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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

    @property
    def difference(self) -> float:
        return self.candidate - self.baseline


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
        return tuple(row.difference for row in self.rows)

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
