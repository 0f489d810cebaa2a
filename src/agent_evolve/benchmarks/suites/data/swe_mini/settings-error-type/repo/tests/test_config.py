import pytest

from settings import Config, ConfigError


def test_get_int():
    assert Config({"port": "8080"}).get_int("port") == 8080


def test_get_int_default():
    assert Config({}).get_int("port", default=80) == 80


def test_missing_str_is_config_error():
    with pytest.raises(ConfigError, match="name"):
        Config({}).get_str("name")
