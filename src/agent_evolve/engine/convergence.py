"""Convergence: has the score curve plateaued?"""

from __future__ import annotations


def _is_score_converged(scores: list[float], window: int = 3, epsilon: float = 0.01) -> bool:
    """True if max - min of the last `window` scores is below `epsilon` (the loop passes egl_threshold)."""
    if len(scores) < window:
        return False
    recent = scores[-window:]
    return (max(recent) - min(recent)) < epsilon

