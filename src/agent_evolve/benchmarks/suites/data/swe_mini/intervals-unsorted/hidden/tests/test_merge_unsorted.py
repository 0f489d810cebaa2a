from intervals import merge


def test_unsorted():
    assert merge([(5, 8), (1, 3), (2, 6)]) == [(1, 8)]


def test_input_untouched():
    data = [(4, 5), (1, 2)]
    assert merge(data) == [(1, 2), (4, 5)]
    assert data == [(4, 5), (1, 2)]
