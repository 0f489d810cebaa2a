"""Boolean switches from environment variables."""

import os


def env_flag(name: str, default: bool = False) -> bool:
    """Whether the environment variable `name` is switched on."""
    value = os.environ.get(name)
    if value is None:
        return default
    return bool(value)
