from moneyfmt import format_money


def test_thousands_separator():
    assert format_money(1234567.25) == "$1,234,567.25"


def test_small_amount_with_cents():
    assert format_money(0.99) == "$0.99"
