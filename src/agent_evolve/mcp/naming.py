"""The name a model sees for an MCP tool: `<server>__<tool>`, safe for every provider (benchmarks name tools
they enable the same way)."""

from __future__ import annotations

import re

SEPARATOR = "__"
MAX_NAME_CHARS = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """`<server>__<tool>` with characters providers refuse replaced, cut to 64 characters."""
    return _UNSAFE.sub("_", f"{server}{SEPARATOR}{tool}")[:MAX_NAME_CHARS]
