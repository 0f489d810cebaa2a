import pytest

from pagekit import page_count, paginate


def test_exact_multiple():
    assert page_count(10, per_page=5) == 2
    assert page_count(5, per_page=5) == 1


def test_last_full_page():
    assert paginate(list(range(10)), 2, per_page=5) == [5, 6, 7, 8, 9]


def test_page_past_the_end_is_refused():
    with pytest.raises(ValueError):
        paginate(list(range(10)), 3, per_page=5)
