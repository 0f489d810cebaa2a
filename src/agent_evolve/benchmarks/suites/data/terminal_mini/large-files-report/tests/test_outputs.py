from pathlib import Path


def test_large_files():
    assert Path("/app/large_files.txt").read_text().split() == ["archive/old.log", "reports/2024.csv"]
