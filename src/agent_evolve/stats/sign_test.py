"""The exact two-sided sign test on discordant pairs; on 0/1 scores it is the exact McNemar test."""

from __future__ import annotations


def sign_test_p(wins: int, losses: int) -> float:
    """P-value of `wins` against `losses` under H0 "each discordant pair is a fair coin" (ties left out): twice the
    binomial tail of the smaller count, capped at 1 (1.0 with no discordant pair). 8 wins, 0 losses: 2 / 2**8."""
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
