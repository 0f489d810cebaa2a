from datetime import date

from calendarx import add_months


def test_leap_february():
    assert add_months(date(2024, 1, 31), 1) == date(2024, 2, 29)


def test_common_february():
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)


def test_backwards_to_february():
    assert add_months(date(2024, 3, 31), -1) == date(2024, 2, 29)
