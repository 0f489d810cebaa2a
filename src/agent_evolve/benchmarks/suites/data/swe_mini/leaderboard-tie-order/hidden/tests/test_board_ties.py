from leaderboard import Player, positions, rank


def test_ties_keep_join_order():
    names = [p.name for p in rank([Player("ann", 10), Player("bob", 10), Player("cy", 12)])]
    assert names == ["cy", "ann", "bob"]


def test_many_ties():
    players = [Player(str(i), 5) for i in range(6)]
    assert [p.name for p in rank(players)] == ["0", "1", "2", "3", "4", "5"]
    assert set(positions(players).values()) == {1}
