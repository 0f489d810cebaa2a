from pathlib import Path


def test_header_and_rows():
    lines = Path("/app/totals.csv").read_text().strip().splitlines()
    assert lines[0] == "region,total"
    assert lines[1:] == ["east,8.00", "north,12.50", "south,8.00", "west,100.00"]
