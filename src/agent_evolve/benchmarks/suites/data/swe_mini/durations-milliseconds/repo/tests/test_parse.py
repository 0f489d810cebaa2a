import pytest

from durations import parse_duration


def test_combined():
    assert parse_duration("1m30s") == 90.0
    assert parse_duration("2h") == 7200.0


def test_garbage():
    with pytest.raises(ValueError):
        parse_duration("soon")
