from leaderboard import Player, positions, rank


def test_highest_first():
    names = [p.name for p in rank([Player("a", 1), Player("b", 3), Player("c", 2)])]
    assert names == ["b", "c", "a"]


def test_tied_positions():
    assert positions([Player("ann", 10), Player("bob", 10), Player("cy", 12)]) == {"cy": 1, "ann": 2, "bob": 2}
