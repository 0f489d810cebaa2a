import pytest

from minstats import median


def test_even_median():
    assert median([1, 2, 3, 4]) == 2.5
    assert median([4, 1]) == 2.5


def test_empty_median():
    with pytest.raises(ValueError):
        median([])
