import pytest

from pagekit import page_count, paginate


def test_partial_last_page():
    assert page_count(11, per_page=5) == 3
    assert paginate(list(range(11)), 3, per_page=5) == [10]


def test_first_page():
    assert paginate(list(range(7)), 1, per_page=3) == [0, 1, 2]


def test_page_zero_is_refused():
    with pytest.raises(ValueError):
        paginate([1, 2], 0)
