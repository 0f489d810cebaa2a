from pathlib import Path


def test_active_users_by_recency():
    assert Path("/app/active_users.txt").read_text().split() == ["cy", "ann", "dee"]
