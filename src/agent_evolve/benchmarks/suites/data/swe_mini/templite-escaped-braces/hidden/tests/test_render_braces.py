import pytest

from templite import render


def test_literal_braces():
    assert render("{{name}} is {name}", name="ann") == "{name} is ann"


def test_only_literals():
    assert render("{{}}") == "{}"


def test_missing_still_key_error():
    with pytest.raises(KeyError, match="who"):
        render("{{x}} {who}")
