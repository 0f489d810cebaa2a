"""The exact sign test (McNemar on discordant pairs): hand-computed values and properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_evolve.stats import sign_test_p


@pytest.mark.parametrize(
    ("wins", "losses", "expected"),
    [
        (8, 0, 0.0078125),  # 2 * 1/2**8
        (7, 0, 0.015625),  # 2 * 1/2**7
        (1, 0, 1.0),  # 2 * 1/2, capped
        (0, 0, 1.0),  # no discordant pair: no evidence
        (6, 1, 0.125),  # 2 * (1 + 7) / 2**7
        (5, 5, 1.0),
        (10, 2, 0.0385742187500),  # 2 * (1 + 12 + 66) / 2**12
    ],
)
def test_hand_computed_p_values(wins: int, losses: int, expected: float) -> None:
    assert sign_test_p(wins, losses) == pytest.approx(expected, abs=1e-12)


def test_large_counts_stay_exact_and_tiny() -> None:
    assert 0.0 <= sign_test_p(3000, 0) < 1e-300
    assert sign_test_p(3000, 3000) == 1.0


def test_negative_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        sign_test_p(-1, 2)


@given(st.integers(0, 200), st.integers(0, 200))
def test_p_is_a_probability_and_symmetric(wins: int, losses: int) -> None:
    p = sign_test_p(wins, losses)
    assert 0.0 <= p <= 1.0
    assert p == sign_test_p(losses, wins)


@given(st.integers(0, 100), st.integers(0, 100))
def test_one_more_win_never_weakens_the_evidence_of_a_lead(wins: int, losses: int) -> None:
    if wins >= losses:
        assert sign_test_p(wins + 1, losses) <= sign_test_p(wins, losses)


@given(st.integers(0, 60), st.integers(0, 60))
def test_agrees_with_the_binomial_definition(wins: int, losses: int) -> None:
    n = wins + losses
    two_sided = 2 * sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    assert sign_test_p(wins, losses) == pytest.approx(min(1.0, two_sided), rel=1e-12)
