from pathlib import Path


def test_count_written():
    assert Path("/app/error_count.txt").is_file()


def test_count_value():
    assert Path("/app/error_count.txt").read_text().strip() == "4"
