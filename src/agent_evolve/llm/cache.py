"""An on-disk reply cache keyed by everything that determines a reply, for reproducible re-runs; a reply read back
carries its call's usage. Replies live in one SQLite file (rollback journal, so one file at rest) read in place, one
locked connection per process; older `<key[:2]>/<key>.json` files are still read, and `pack_folder` moves them in."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent_evolve.contract.regular_files import read_regular_text
from agent_evolve.errors import AgentEvolveError
from agent_evolve.llm.base import Completion, Message, ToolCall, ToolSpec
from agent_evolve.types import Usage


def cache_key(model: str, messages: list[Message], tools: list[ToolSpec] | None, params: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of everything that determines a reply."""
    payload = {"model": model, "messages": [m.to_dict() for m in messages], "tools": [asdict(t) for t in tools or []],
               "params": params}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _from_dict(data: dict[str, Any]) -> Completion:
    return Completion(text=data["text"], tool_calls=[ToolCall(**c) for c in data["tool_calls"]],
                      finish_reason=data["finish_reason"], model=data["model"], usage=Usage(**data.get("usage", {})))


_KEY = re.compile(r"[0-9a-f]{64}")
STORE_NAME = "replies.sqlite"
BUSY_TIMEOUT_S = 60.0
_SCHEMA = "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)"


class ReplyStore:
    """Reply texts (the JSON a cache entry holds) keyed by cache key, in one SQLite file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._opened: tuple[int, int, int] = (0, 0, 0)  # the process and the file (device, inode) it opened

    def _file(self) -> tuple[int, int]:
        try:
            stat = self.path.stat()
        except OSError:
            return (0, 0)
        return (stat.st_dev, stat.st_ino)

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """This process's connection to the file now at the path (a file replaced under an open connection, say by a
        git checkout, is opened again: SQLite refuses writes to the moved one); None when absent and not ``create``."""
        if self._connection is not None and self._opened == (os.getpid(), *self._file()):
            return self._connection
        if self._connection is not None and self._opened[0] == os.getpid():
            self._connection.close()
        self._connection = None
        if not create and not self.path.is_file():
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        connection.execute(_SCHEMA)
        self._connection, self._opened = connection, (os.getpid(), *self._file())
        return connection

    def get(self, key: str) -> str | None:
        """The reply text stored under key, or None."""
        with self._lock:
            connection = self._connect(create=False)
            if connection is None:
                return None
            row = connection.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, reply: str) -> None:
        """Store reply under key (replacing any), in one transaction."""
        with self._lock:
            connection = self._connect(create=True)
            assert connection is not None
            connection.execute("INSERT OR REPLACE INTO replies (key, reply) VALUES (?, ?)", (key, reply))

    def add_missing(self, pairs: Iterable[tuple[str, str]]) -> int:
        """Store every (key, reply) whose key is not stored yet, all in one transaction; how many were new."""
        with self._lock:
            connection = self._connect(create=True)
            assert connection is not None
            before = connection.total_changes
            connection.execute("BEGIN IMMEDIATE")
            with connection:  # commits, or rolls back on any error
                connection.executemany("INSERT OR IGNORE INTO replies (key, reply) VALUES (?, ?)", pairs)
            return connection.total_changes - before

    def items(self) -> Iterator[tuple[str, str]]:
        """Every stored (key, reply), by key."""
        with self._lock:
            connection = self._connect(create=False)
            rows = [] if connection is None else connection.execute(
                "SELECT key, reply FROM replies ORDER BY key").fetchall()
        return ((str(key), str(reply)) for key, reply in rows)

    def close(self) -> None:
        """Close this process's connection (a later call opens a new one)."""
        with self._lock:
            if self._connection is not None and self._opened[0] == os.getpid():
                self._connection.close()
            self._connection = None


class ResponseCache:
    """Completions stored in a folder's one-file store, each with the usage of the call that made it; replies in
    the folder's older JSON files are read too."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.store = ReplyStore(self.directory / STORE_NAME)

    def get(self, key: str) -> Completion | None:
        """The cached completion for key, or None (also for an unreadable entry or store)."""
        try:
            text = self.store.get(key)
            if text is None:  # not in the store: the older layout's file, if any
                text = read_regular_text(self.directory / key[:2] / f"{key}.json")
            return _from_dict(json.loads(text))
        except (OSError, ValueError, KeyError, TypeError, sqlite3.Error):
            return None

    def put(self, key: str, completion: Completion) -> None:
        """Store completion under key, atomically."""
        self.store.put(key, json.dumps(asdict(completion), ensure_ascii=False))


def _reply_text(path: Path) -> tuple[str, str]:
    """(key, reply text) of one JSON reply file, or an AgentEvolveError naming the file and what is wrong."""
    key = path.stem
    if not _KEY.fullmatch(key) or path.parent.name != key[:2]:
        raise AgentEvolveError(f"{path}: not a cached reply (the name must be <sha256>.json under its first two "
                               "hex digits)")
    try:
        text = read_regular_text(path)
        _from_dict(json.loads(text))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise AgentEvolveError(f"{path}: not a cached reply ({type(exc).__name__}: {exc})") from None
    return key, text


def cached_replies(directory: Path) -> Iterator[dict[str, Any]]:
    """Every reply a cache folder holds (its store, then JSON files the store lacks), as stored."""
    seen = set()
    for key, text in ReplyStore(directory / STORE_NAME).items():
        seen.add(key)
        yield json.loads(text)
    for path in sorted(directory.glob("*/*.json")):  # the older layout's files: <key[:2]>/<key>.json
        if path.stem not in seen:
            try:
                yield json.loads(read_regular_text(path))
            except (OSError, ValueError):
                continue


@dataclass(frozen=True)
class Packed:
    """What packing a cache folder did: JSON files read, replies new to the store, files removed."""

    files: int
    added: int
    removed: int


def pack_folder(directory: str | os.PathLike[str], *, remove: bool = False) -> Packed:
    """Move a cache folder's JSON reply files into its store (a stored key keeps its reply), all checked first; with
    ``remove`` the files and emptied subfolders go once the store holds every key."""
    folder = Path(directory)
    if not folder.is_dir():
        raise AgentEvolveError(f"{folder}: not a folder of cached replies")
    paths = sorted(folder.glob("*/*.json"))
    pairs = [_reply_text(path) for path in paths]
    store = ReplyStore(folder / STORE_NAME)
    try:
        added = store.add_missing(pairs) if pairs else 0
        missing = [path for path, (key, _) in zip(paths, pairs) if store.get(key) is None]
    finally:
        store.close()
    if missing:
        raise AgentEvolveError(f"{missing[0]}: not in {store.path} after packing; nothing removed")
    if remove:
        for path in paths:
            path.unlink()
        for parent in sorted({path.parent for path in paths}):
            if not any(parent.iterdir()):
                parent.rmdir()
    return Packed(files=len(paths), added=added, removed=len(paths) if remove else 0)
