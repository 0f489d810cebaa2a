from rowparse import parse_row


def test_plain():
    assert parse_row("a,b,c") == ["a", "b", "c"]


def test_empty_fields_and_newline():
    assert parse_row("a,,c\n") == ["a", "", "c"]
