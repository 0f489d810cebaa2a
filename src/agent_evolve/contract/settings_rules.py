"""One checker for small settings mappings (the agent's `agent.config`, `prompts/experience.yaml`): each key has a
validity test and a phrase saying what a valid value is, so every error names the file, the key and the rule."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_evolve.errors import AgentEvolveError

Rules = Mapping[str, tuple[Callable[[Any], bool], str]]
"""Per key: a validity test and what a valid value is, for the error message."""


def is_int(value: Any) -> bool:
    """An int that is not a bool (YAML reads `true` as a bool, which Python counts as an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """An int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_settings(data: Mapping[str, Any], rules: Rules, where: str, error: type[AgentEvolveError],
                   key_prefix: str = "") -> None:
    """Raise `error` naming `where` and the key for an unknown key or a value its rule refuses."""
    for key, value in data.items():
        if key not in rules:
            raise error(f"{where}: key '{key_prefix}{key}' is unknown; known keys: {', '.join(rules)}")
        valid, expected = rules[key]
        if not valid(value):
            raise error(f"{where}: key '{key_prefix}{key}' must be {expected}, got {value!r}")
