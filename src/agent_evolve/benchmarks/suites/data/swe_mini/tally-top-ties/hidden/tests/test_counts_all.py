from tally import top


def test_all_by_default():
    assert top({"a": 5, "b": 4, "c": 3, "d": 1}) == [("a", 5), ("b", 4), ("c", 3), ("d", 1)]


def test_ties_by_key():
    assert top({"z": 1, "y": 1, "x": 2}) == [("x", 2), ("y", 1), ("z", 1)]
