import pytest

from envflags import env_flag


@pytest.mark.parametrize("value", ["0", "false", "FALSE", "NO", "off", ""])
def test_false_words(monkeypatch, value):
    monkeypatch.setenv("AE_FLAG", value)
    assert env_flag("AE_FLAG", default=True) is False


def test_true_words(monkeypatch):
    monkeypatch.setenv("AE_FLAG", " Yes ")
    assert env_flag("AE_FLAG") is True


def test_other_values_are_refused(monkeypatch):
    monkeypatch.setenv("AE_FLAG", "maybe")
    with pytest.raises(ValueError, match="AE_FLAG"):
        env_flag("AE_FLAG")
