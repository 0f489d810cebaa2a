from datetime import datetime

from daycount import days_between


def test_across_midnight():
    assert days_between(datetime(2024, 2, 29, 20, 0), datetime(2024, 3, 1, 8, 0)) == 1


def test_backwards():
    assert days_between(datetime(2024, 3, 1, 8), datetime(2024, 2, 29, 20)) == -1
