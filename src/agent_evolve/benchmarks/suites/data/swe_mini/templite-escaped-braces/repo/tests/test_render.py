import pytest

from templite import render


def test_fields():
    assert render("{greeting}, {name}!", greeting="Hi", name="ann") == "Hi, ann!"


def test_missing_value():
    with pytest.raises(KeyError):
        render("{nope}")
