from intervals import merge


def test_sorted_overlaps():
    assert merge([(1, 3), (2, 6), (8, 10)]) == [(1, 6), (8, 10)]


def test_touching():
    assert merge([(1, 2), (2, 4)]) == [(1, 4)]


def test_empty():
    assert merge([]) == []
