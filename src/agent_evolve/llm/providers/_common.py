"""Small helpers every provider shares: lazy SDK import, argument decoding, system-prompt splitting."""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

from agent_evolve.errors import MissingDependencyError
from agent_evolve.llm.base import Message


def import_sdk(module: str, extra: str) -> ModuleType:
    """Import an optional SDK, or raise MissingDependencyError naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"the {module!r} package is needed for this model; install it with: pip install 'agent-evolve[{extra}]'"
        ) from exc


def decode_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict, whether the wire sent a JSON string, a dict or something malformed."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_value": value}


def split_system(messages: list[Message]) -> tuple[str, list[Message]]:
    """Join every system message into one prompt and return it with the remaining conversation."""
    system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
    return system, [m for m in messages if m.role != "system"]
