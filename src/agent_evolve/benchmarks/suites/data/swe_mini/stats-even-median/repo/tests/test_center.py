import pytest

from minstats import mean, median


def test_odd_median():
    assert median([3, 1, 2]) == 2


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5
    with pytest.raises(ValueError):
        mean([])
