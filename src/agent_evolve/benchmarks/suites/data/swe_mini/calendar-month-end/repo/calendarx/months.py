"""Calendar arithmetic on dates."""

from datetime import date


def add_months(day: date, months: int) -> date:
    """The same day of the month, `months` later (or earlier when negative)."""
    index = day.month - 1 + months
    year = day.year + index // 12
    month = index % 12 + 1
    return day.replace(year=year, month=month)
