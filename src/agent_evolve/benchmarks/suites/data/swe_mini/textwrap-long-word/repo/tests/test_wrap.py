from wraptext import wrap


def test_wraps_at_width():
    assert wrap("the quick brown fox", 10) == ["the quick", "brown fox"]


def test_empty():
    assert wrap("", 5) == []
