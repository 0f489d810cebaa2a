"""JSON Lines files of mappings (memories, evolution history): strict reading with file:line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_evolve.errors import WorkspaceError


def _parse_line(path: Path, lineno: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise WorkspaceError(f"{path}:{lineno}: malformed JSON line: {exc.msg} (column {exc.colno})") from None
    if not isinstance(value, dict):
        raise WorkspaceError(f"{path}:{lineno}: each line must be a JSON object, got {type(value).__name__}")
    return value


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Every object of a JSONL file, in order; blank lines are skipped, a missing file gives [].

    A line that is not a JSON object raises :class:`WorkspaceError` naming ``file:line``.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"{path}: cannot read: {exc}") from None
    return [_parse_line(path, n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]


def jsonl_problems(path: str | Path) -> list[str]:
    """Every malformed line of a JSONL file, each as ``file:line: problem`` (empty when all are valid)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{path}: cannot read: {exc}"]
    problems = []
    for n, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                _parse_line(path, n, line)
            except WorkspaceError as exc:
                problems.append(str(exc))
    return problems


def dump_line(entry: dict[str, Any], where: str | Path) -> str:
    """One JSON line (with its newline) for ``entry``; a non-mapping or unserialisable entry is refused."""
    if not isinstance(entry, dict):
        raise WorkspaceError(f"{where}: an entry must be a dict, got {type(entry).__name__}")
    try:
        return json.dumps(entry, ensure_ascii=False, sort_keys=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise WorkspaceError(f"{where}: entry is not JSON-serialisable: {exc}") from None
