import pytest

from settings import Config, ConfigError


def test_bad_int_is_config_error():
    with pytest.raises(ConfigError, match="port"):
        Config({"port": "eighty"}).get_int("port")


def test_missing_int_is_config_error():
    with pytest.raises(ConfigError, match="timeout"):
        Config({}).get_int("timeout")
