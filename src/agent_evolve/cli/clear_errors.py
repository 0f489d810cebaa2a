"""A decorator for read-side commands: an AgentEvolveError becomes one clear line and exit status 1."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from agent_evolve.errors import AgentEvolveError

F = TypeVar("F", bound=Callable[..., Any])


def clear_errors(func: F) -> F:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except AgentEvolveError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper  # type: ignore[return-value]
