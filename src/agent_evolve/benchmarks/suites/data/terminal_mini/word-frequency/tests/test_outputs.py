from pathlib import Path


def test_top_three():
    assert Path("/app/top_words.txt").read_text().strip().splitlines() == ["the 5", "land 4", "people 4"]
