"""The paired bootstrap confidence interval of a mean difference, deterministic for a seed."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from agent_evolve.stats.paired import mean


def paired_bootstrap_ci(differences: Sequence[float], *, resamples: int = 10_000, level: float = 0.95,
                        seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the mean of per-task differences, resampling whole tasks (paired) with replacement;
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
