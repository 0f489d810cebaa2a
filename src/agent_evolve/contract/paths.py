"""Safe paths inside a workspace: joins that cannot escape the root, name checks, atomic writes."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

from agent_evolve.errors import WorkspaceError

RECORDS_DIR = "evolution"  # a run's records (history, journal, observations): ignored by git, hidden from tools
REPLIES_DIR = "replies"  # the response cache: a run's under its records folder, an experiment's under its output
TEMP_SUFFIX = ".tmp"  # suffix of the hidden temporary files `atomic_write` creates beside its target

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
CATEGORY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def safe_join(root: str | Path, *parts: str | os.PathLike[str]) -> Path:
    """Join ``parts`` under ``root``: absolute parts, ``..`` that climbs out and symlinks that leave the root raise
    :class:`WorkspaceError`. The result is absolute with symlinks resolved; it need not exist."""
    base = Path(root).resolve()
    for part in parts:
        text = os.fspath(part)
        if "\x00" in text:
            raise WorkspaceError(f"{base}: path {text!r} contains a NUL byte")
        if os.path.isabs(text) or Path(text).anchor:
            raise WorkspaceError(f"{base}: absolute path {text!r} refused; names must be relative to the workspace")
    target = base.joinpath(*(os.fspath(p) for p in parts)).resolve()
    if target != base and not target.is_relative_to(base):
        joined = "/".join(os.fspath(p) for p in parts)
        raise WorkspaceError(f"{base}: path {joined!r} escapes the workspace (resolves to {target})")
    return target


def check_name(name: str, kind: str) -> str:
    """``name`` when it is one plain path component (no separators, not ``.``/``..``); ``kind`` names it in errors."""
    if not isinstance(name, str):
        raise WorkspaceError(f"{kind} name must be a string, got {type(name).__name__}")
    problems = ((not name, "is empty"), (name in (".", ".."), "is a relative directory reference"),
                ("/" in name or "\\" in name, "contains a path separator"), ("\x00" in name, "contains a NUL byte"),
                (os.path.isabs(name) or bool(Path(name).anchor), "is an absolute path"))
    problem = next((why for bad, why in problems if bad), None)
    if problem:
        raise WorkspaceError(f"invalid {kind} name {name!r}: {problem}")
    return name


def check_category(category: str) -> str:
    """Check a memory category name: 1-64 chars of letters, digits, ``_`` and ``-``, starting alphanumeric."""
    if not isinstance(category, str) or not CATEGORY_RE.match(category):
        raise WorkspaceError(
            f"invalid memory category {category!r}: use 1-64 letters, digits, '_' or '-', starting with a letter or digit"
        )
    return category


def atomic_write(path: str | Path, text: str, *, durable: bool = False) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` via a temp file and a rename: readers see the old or the
    new content, never part, even across a kill -9. ``durable=True`` also fsyncs, for records a machine crash must not
    lose. Text that is not valid UTF-8 is refused before anything is touched; a failed write removes the folders it
    created."""
    target = Path(path)
    data = encode_utf8(text, target)
    created = _missing_parents(target.parent)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=TEMP_SUFFIX)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except BaseException:
        for folder in created:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def encode_utf8(text: str, where: str | Path) -> bytes:
    """``text`` as UTF-8 bytes; a lone surrogate (not encodable) raises WorkspaceError naming ``where``."""
    if not isinstance(text, str):
        raise WorkspaceError(f"{where}: content must be text, got {type(text).__name__}")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise WorkspaceError(
            f"{where}: content is not valid Unicode (a lone surrogate at character {exc.start}); nothing was written"
        ) from None


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, so it can be written as UTF-8 (model replies)."""
    return _SURROGATE_RE.sub("\ufffd", text)


def _missing_parents(folder: Path) -> list[Path]:
    """The folders from ``folder`` upwards that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def is_temp_file(name: str) -> bool:
    """True for a leftover temporary file of :func:`atomic_write` (ignored when listing layers)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)
