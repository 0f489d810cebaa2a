"""A run's cached model replies as one SQLite file (rollback journal, so it stays one file at rest), read in place;
threads share one locked connection per process, and other processes wait on SQLite's file lock."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

STORE_NAME = "replies.sqlite"
BUSY_TIMEOUT_S = 60.0
_SCHEMA = "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL)"


class ReplyStore:
    """Reply texts (the JSON a cache entry holds) keyed by cache key, in one SQLite file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """This process's connection; None when the file is absent and ``create`` is false."""
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        if not create and not self.path.is_file():
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        connection.execute(_SCHEMA)
        self._connection, self._pid = connection, os.getpid()
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
            try:
                connection.executemany("INSERT OR IGNORE INTO replies (key, reply) VALUES (?, ?)", pairs)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
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
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None
