from datetime import datetime

from daycount import days_between


def test_midnights():
    assert days_between(datetime(2024, 1, 1), datetime(2024, 1, 31)) == 30


def test_same_day():
    assert days_between(datetime(2024, 5, 5, 1), datetime(2024, 5, 5, 23)) == 0
