"""Typed access to a mapping of string settings."""


class ConfigError(Exception):
    """A setting is missing or has the wrong form."""


class Config:
    def __init__(self, values):
        self.values = dict(values)

    def get_str(self, key, default=None):
        if key not in self.values:
            if default is None:
                raise ConfigError(f"missing setting {key!r}")
            return default
        return self.values[key]

    def get_int(self, key, default=None):
        if key not in self.values and default is not None:
            return default
        return int(self.values[key])
