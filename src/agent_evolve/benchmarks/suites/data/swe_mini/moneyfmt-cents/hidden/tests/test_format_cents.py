from moneyfmt import format_money


def test_two_decimals_always():
    assert format_money(1234.5) == "$1,234.50"
    assert format_money(7) == "$7.00"


def test_negative_sign_first():
    assert format_money(-5) == "-$5.00"


def test_other_symbol():
    assert format_money(3, symbol="€") == "€3.00"
