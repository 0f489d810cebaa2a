from wraptext import wrap


def test_long_first_word():
    assert wrap("supercalifragilistic is long", 10) == ["supercalifragilistic", "is long"]


def test_only_a_long_word():
    assert wrap("abcdefghijkl", 4) == ["abcdefghijkl"]
