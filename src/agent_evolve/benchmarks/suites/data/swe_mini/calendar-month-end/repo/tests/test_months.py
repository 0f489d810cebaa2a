from datetime import date

from calendarx import add_months


def test_simple():
    assert add_months(date(2024, 1, 15), 1) == date(2024, 2, 15)


def test_year_rollover():
    assert add_months(date(2023, 11, 3), 3) == date(2024, 2, 3)


def test_negative():
    assert add_months(date(2024, 1, 10), -1) == date(2023, 12, 10)
