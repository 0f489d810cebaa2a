"""Convergence: has the accepted score stopped rising?

The curve is the accepted version's holdout score: the baseline's, then the accepted score after each cycle
(without a holdout, the accepted version's running mean train score). It moves only when the gate accepts a
change, so a plateau means no accepted change improved it. Batch scores are not used: each batch holds
different tasks, and equal averages of different tasks (three 4-task batches at 0.25) say nothing about progress.
"""

from __future__ import annotations

import math


def accepted_score_plateaued(curve: list[float], window: int, epsilon: float) -> bool:
    """True when the best accepted score of the last `window` cycles beats the best before them by less than
    `epsilon` (the loop passes egl_window and egl_threshold); False until the curve is longer than `window`."""
    scores = [s for s in curve if math.isfinite(s)]
    if len(scores) <= window:
        return False
    return max(scores[-window:]) - max(scores[:-window]) < epsilon


def _is_score_converged(scores: list[float], window: int = 3, epsilon: float = 0.01) -> bool:
    """The A-Evolve page's plateau test, kept under its name and import path: True if max - min of the last
    `window` scores is below `epsilon`. The loop stops on `accepted_score_plateaued` instead."""
    if len(scores) < window:
        return False
    recent = scores[-window:]
    return (max(recent) - min(recent)) < epsilon
