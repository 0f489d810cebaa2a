"""The paired bootstrap interval: deterministic for a seed, contains the mean, symmetric under swapping arms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_evolve.stats import PairedTable, mean, paired_bootstrap_ci

_SCORES = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=30)


def test_same_seed_same_interval_other_seed_other_draws() -> None:
    diffs = [0.13, -0.42, 0.77, 0.05, -0.31, 0.9, 0.21, -0.08, 0.66, 0.34]
    first = paired_bootstrap_ci(diffs, resamples=200, seed=3)
    assert first == paired_bootstrap_ci(diffs, resamples=200, seed=3)
    assert first != paired_bootstrap_ci(diffs, resamples=200, seed=4)


def test_a_clear_lift_has_an_interval_above_zero_and_noise_does_not() -> None:
    lift = [1.0] * 12 + [0.0] * 100 + [-1.0] * 2  # 12 tasks gained, 2 lost of 114
    low, high = paired_bootstrap_ci(lift, resamples=4000, seed=0)
    assert 0.0 < low < mean(lift) < high
    noise = [1.0] * 3 + [0.0] * 100 + [-1.0] * 3
    low, high = paired_bootstrap_ci(noise, resamples=4000, seed=0)
    assert low < 0.0 < high


def test_a_wider_level_gives_a_wider_interval() -> None:
    diffs = [1.0, 0.0, 0.5, -0.5, 1.0, 0.0, 0.25, 0.0]
    low95, high95 = paired_bootstrap_ci(diffs, resamples=3000, level=0.95, seed=1)
    low50, high50 = paired_bootstrap_ci(diffs, resamples=3000, level=0.5, seed=1)
    assert low95 <= low50 <= high50 <= high95 and high95 - low95 > high50 - low50


def test_constant_differences_give_a_point() -> None:
    assert paired_bootstrap_ci([0.25] * 7, resamples=50) == (0.25, 0.25)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"resamples": 0}, "resamples"), ({"level": 1.0}, "level"), ({"level": 0.0}, "level")],
)
def test_bad_parameters_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        paired_bootstrap_ci([0.1, 0.2], **kwargs)
    with pytest.raises(ValueError, match="at least one"):
        paired_bootstrap_ci([])


@settings(max_examples=60, deadline=None)
@given(_SCORES, st.data(), st.integers(0, 1000))
def test_interval_contains_the_mean_and_swapping_arms_mirrors_it(base: list[float], data: st.DataObject,
                                                                  seed: int) -> None:
    cand = data.draw(st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=len(base), max_size=len(base)))
    table = PairedTable.pair({f"t{i}": s for i, s in enumerate(base)}, {f"t{i}": s for i, s in enumerate(cand)})
    swapped = PairedTable.pair({f"t{i}": s for i, s in enumerate(cand)}, {f"t{i}": s for i, s in enumerate(base)})
    low, high = paired_bootstrap_ci(table.differences, resamples=500, seed=seed)
    assert low - 1e-12 <= table.mean_difference <= high + 1e-12
    assert paired_bootstrap_ci(swapped.differences, resamples=500, seed=seed) == (-high, -low)
