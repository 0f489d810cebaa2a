"""JSON Lines files of mappings (memories, journal, history, observations, ledger): the one reading and appending policy.

Reading: every line is a JSON object; only a torn LAST line (a writer killed mid-append) is skipped, any other bad
line is a :class:`WorkspaceError` naming ``file:line`` (the file was damaged, not interrupted). Appending: a torn
last line is first truncated away, so the next record never fuses with half a line; each record is one ``write``.
Durability: fsync guards only against a machine crash and costs a disk flush, so only the cycle journal pays it.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import encode_utf8
from agent_evolve.contract.regular_files import NotRegularFileError, open_regular, read_text_if_present
from agent_evolve.errors import WorkspaceError
from agent_evolve.io.safe_json import parse_json


def _lines(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any] | WorkspaceError]]:
    """``(line number, object, or the error saying why the line is not one)`` for each non-blank line; a bad
    unterminated last line (torn: its writer was killed mid-append) is left out."""
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = parse_json(line, f"{path}:{number}")
            if not isinstance(value, dict):
                raise WorkspaceError(f"{path}:{number}: each line must be a JSON object, got {type(value).__name__}")
            yield number, value
        except WorkspaceError as exc:
            if number < len(lines):
                yield number, exc


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Every object of a JSONL file, in order; blank lines and a torn last line are skipped, a missing file gives []."""
    return [record for _, record in numbered_jsonl(path)]


def numbered_jsonl(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each object :func:`read_jsonl` reads: a later check can name the file's line."""
    path = Path(path)
    records = []
    for number, value in _lines(path, read_text_if_present(path) or ""):
        if isinstance(value, WorkspaceError):
            raise value
        records.append((number, value))
    return records


FieldCheck = tuple[str, Callable[[Any], bool]]  # what a field's value must be, in words, and the test of it


def checked_rows(rows: list[dict[str, Any]], path: str | Path, fields: Mapping[str, FieldCheck],
                 first: int = 1) -> list[dict[str, Any]]:
    """`rows` read from `path`, or a WorkspaceError naming the first record (numbered from `first`) whose field
    fails its check in `fields` (a dotted key reaches into objects): valid JSON, but damaged, caught before any
    reader trips on it."""
    for number, row in enumerate(rows, first):
        for key, (what, ok) in fields.items():
            found, value = _field(row, key)
            if found and not ok(value):
                raise WorkspaceError(f"{path}: record {number}: '{key}' is {value!r:.80}, not {what}; "
                                     "the record is damaged")
    return rows


def _field(row: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    """Whether `row` has the field `dotted` (`metadata.usage`), and its value."""
    value: Any = row
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def jsonl_problems(path: str | Path) -> list[str]:
    """Every malformed line of a JSONL file, each as ``file:line: problem`` (a torn last line is not one)."""
    path = Path(path)
    try:
        text = read_text_if_present(path)
    except WorkspaceError as exc:
        return [str(exc)]
    return [str(value) for _, value in _lines(path, text or "") if isinstance(value, WorkspaceError)]


def dump_line(entry: dict[str, Any], where: str | Path, *, records: bool = False) -> str:
    """One JSON line (with its newline) for a mapping ``entry``; ``records=True`` is the run records' style: keys
    sorted, values JSON lacks (paths, dates) written as text."""
    if not isinstance(entry, dict):
        raise WorkspaceError(f"{where}: an entry must be a dict, got {type(entry).__name__}")
    try:
        return json.dumps(entry, ensure_ascii=False, sort_keys=records, default=str if records else None) + "\n"
    except (TypeError, ValueError, RecursionError) as exc:
        raise WorkspaceError(f"{where}: entry is not JSON-serialisable: {exc}") from None


def repair_tail(path: str | Path) -> bool:
    """Make ``path`` end on a line boundary: drop a torn last line, or end a valid one with its newline; True when
    it changed the file. Call it only while holding whatever lock serialises the writers."""
    path = Path(path)
    try:
        with os.fdopen(open_regular(path, os.O_RDWR), "r+b") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return False
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return False
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
                start = view.rfind(b"\n") + 1
                tail = view[start:]
            if _is_object(tail):
                handle.seek(size)
                handle.write(b"\n")
            else:
                handle.truncate(start)
            return True
    except FileNotFoundError:
        return False
    except NotRegularFileError:
        raise
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot repair its last line: {exc}") from None


def append_line(path: str | Path, entry: dict[str, Any], *, durable: bool = False, records: bool = False) -> None:
    """Append ``entry`` as one line after repairing a torn tail; ``durable`` fsyncs it (see the module's rule)."""
    path = Path(path)
    data = encode_utf8(dump_line(entry, path, records=records), path)
    path.parent.mkdir(parents=True, exist_ok=True)
    repair_tail(path)
    with os.fdopen(open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as handle:
        handle.write(data)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())


def _is_object(raw: bytes) -> bool:
    try:
        return isinstance(parse_json(raw.decode("utf-8"), "tail"), dict)
    except (WorkspaceError, UnicodeDecodeError):
        return False
