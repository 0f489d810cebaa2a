"""Money amounts for display."""


def format_money(amount, symbol="$"):
    """The amount with thousands separators and the currency symbol."""
    rounded = round(amount, 2)
    if rounded == int(rounded):
        rounded = int(rounded)
    return f"{symbol}{rounded:,}"
