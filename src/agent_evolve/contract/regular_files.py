"""Opening workspace and record files so that no reader can hang on a FIFO or a device: ``O_NONBLOCK``, then
``fstat``; anything but a regular file is a :class:`NotRegularFileError` naming the path (symlinks followed)."""

from __future__ import annotations

import errno
import io
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_evolve.errors import WorkspaceError

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class NotRegularFileError(WorkspaceError, OSError):
    """A path that should hold a file is a FIFO, device, socket or folder; an OSError too, so "unreadable" handlers
    that already tolerate a file they cannot read treat it the same way."""


def _refuse(path: str | os.PathLike[str], mode: int | None) -> NotRegularFileError:
    """The error for `path`, saying what a file of `mode` is in words ("a FIFO (named pipe)", "a socket"...)."""
    kind = next((name for test, name in _KINDS if mode is not None and test(mode)), "not a regular file")
    return NotRegularFileError(f"{os.fspath(path)}: is {kind}, not a regular file; refused")


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """A blocking descriptor of the regular file ``path`` opened with ``flags``; a missing file raises
    FileNotFoundError, a FIFO, device, socket or folder :class:`NotRegularFileError` without waiting on it."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno not in (errno.ENXIO, errno.EISDIR):
            raise
        try:
            found: int | None = os.stat(path).st_mode
        except OSError:
            found = None
        raise _refuse(path, found) from None
    try:
        found = os.fstat(fd).st_mode
        if not stat.S_ISREG(found):
            raise _refuse(path, found)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`open_regular` for what is refused)."""
    with os.fdopen(open_regular(path), "rb") as handle:
        return handle.read()


def read_regular_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of the regular file ``path``, read as ``Path.read_text`` reads it (universal newlines)."""
    with io.open(open_regular(path), encoding="utf-8") as handle:
        return handle.read()


def read_text_if_present(path: str | os.PathLike[str]) -> str | None:
    """The text of the regular file ``path``, None when it does not exist; a file that cannot be read is a
    WorkspaceError naming it (a FIFO, device or folder stays a :class:`NotRegularFileError`)."""
    try:
        return read_regular_text(path)
    except FileNotFoundError:
        return None
    except NotRegularFileError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"{os.fspath(path)}: cannot read: {exc}") from None


def copy_regular(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> str:
    """``shutil.copy2`` for regular files only: the ``copy_function`` of tree copies, never reading a FIFO or device."""
    with os.fdopen(open_regular(source), "rb") as reader, open(target, "wb") as writer:
        shutil.copyfileobj(reader, writer)
    shutil.copystat(source, target)
    return os.fspath(target)


def copy_tree(source: str | Path, target: str | Path, *, ignore: Callable[[str, list[str]], Any] | None = None,
              dirs_exist_ok: bool = False) -> None:
    """``shutil.copytree`` whose every file goes through :func:`copy_regular`; a special file fails the copy with a
    WorkspaceError naming it (after the regular files were copied, as copytree does)."""
    try:
        shutil.copytree(source, target, ignore=ignore, dirs_exist_ok=dirs_exist_ok, copy_function=copy_regular)
    except shutil.Error as exc:
        problems = [str(why) for _, _, why in exc.args[0]] if exc.args and isinstance(exc.args[0], list) else [str(exc)]
        raise WorkspaceError(f"{source}: cannot copy to {target}: {'; '.join(problems)}") from None
