"""The one JSON reader for files and model replies: bounded size and depth (`json.loads` alone raises RecursionError on
deep input and builds values too deep for later code to walk), every failure the caller's error naming the source.
"""

from __future__ import annotations

import json
from typing import Any

from agent_evolve.errors import AgentEvolveError, WorkspaceError

MAX_JSON_CHARS = 64_000_000
MAX_JSON_DEPTH = 100


def parse_json(text: str | bytes, where: str, error: type[AgentEvolveError] = WorkspaceError,
               max_chars: int = MAX_JSON_CHARS) -> Any:
    """The JSON value of ``text``; malformed, too large or too deep input raises ``error`` naming ``where``. A leading
    UTF-8 byte-order mark (which some Windows editors write) is ignored, as ``json.loads`` ignores it in bytes."""
    if isinstance(text, str):
        text = text.removeprefix("\ufeff")
    if len(text) > max_chars:
        raise error(f"{where}: JSON text is {len(text)} characters long; the limit is {max_chars}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise error(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise error(f"{where}: not valid JSON: {' '.join(str(exc).split())}") from None
    opens = text.count("[") + text.count("{") if isinstance(text, str) else text.count(b"[") + text.count(b"{")
    if opens > MAX_JSON_DEPTH and too_deep(value):
        raise error(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when lists and dicts in ``value`` nest more than ``limit`` levels (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
