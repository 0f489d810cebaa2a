"""The lift of a candidate over a baseline in one JSON-ready record: the numbers a lift report prints."""

from __future__ import annotations

from typing import Any

from agent_evolve.stats.bootstrap import paired_bootstrap_ci
from agent_evolve.stats.paired import PairedTable
from agent_evolve.stats.sign_test import sign_test_p


def lift_summary(table: PairedTable, *, resamples: int = 10_000, level: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """Means, lift, paired bootstrap interval, sign-test (McNemar) p-value and the win/loss/tie counts."""
    low, high = paired_bootstrap_ci(table.differences, resamples=resamples, level=level, seed=seed)
    return {
        "n": table.n,
        "baseline_mean": table.baseline_mean,
        "candidate_mean": table.candidate_mean,
        "mean_difference": table.mean_difference,
        "ci_low": low,
        "ci_high": high,
        "ci_level": level,
        "p_value": sign_test_p(table.wins, table.losses),
        "wins": table.wins,
        "losses": table.losses,
        "ties": table.ties,
        "excluded": list(table.excluded),
    }
