from pathlib import Path


def test_unique_sorted_lower():
    lines = Path("/app/unique_emails.txt").read_text().splitlines()
    assert lines == ["ann@example.com", "bob@example.com", "cy@test.org", "dee@test.org"]
