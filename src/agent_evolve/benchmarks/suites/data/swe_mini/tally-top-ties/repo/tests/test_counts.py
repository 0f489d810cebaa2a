from tally import count_words, top


def test_count_words():
    assert count_words("a b A") == {"a": 2, "b": 1}


def test_top_n():
    assert top({"a": 1, "b": 3, "c": 2}, n=2) == [("b", 3), ("c", 2)]
