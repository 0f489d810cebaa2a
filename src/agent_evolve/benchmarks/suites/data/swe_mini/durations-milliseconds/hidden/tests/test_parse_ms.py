import pytest

from durations import parse_duration


def test_milliseconds():
    assert parse_duration("500ms") == pytest.approx(0.5)


def test_seconds_and_milliseconds():
    assert parse_duration("1s250ms") == pytest.approx(1.25)
