"""The ledger's schema and its migrations: version `i` of a file is migrated to `i + 1` by `MIGRATIONS[i]`.

Append-only is enforced by SQLite itself: triggers refuse every UPDATE and DELETE on the evidence tables (and
UPDATE on capsules, whose one deletion is the audited `prune_capsules`). They are created on every open when
missing, so a file written before they existed gets them; the schema version does not change for them.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from agent_evolve.contract.regular_files import NotRegularFileError, open_regular
from agent_evolve.errors import WorkspaceError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "LedgerError", "check_header", "migrate"]

SQLITE_HEADER = b"SQLite format 3\x00"


class LedgerError(WorkspaceError):
    """A ledger file is not SQLite, is newer than this code, or cannot be written; the message names it."""


def _run(db: sqlite3.Connection, script: str) -> None:
    """Run `;`-separated statements one by one (executescript would commit the caller's transaction)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v1(db: sqlite3.Connection) -> None:
    """Version 1: capsules, verdicts, skill versions and status history, meta-skills, decisions, audit."""
    _run(
        db,
        """
        CREATE TABLE capsules (id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL,
            task_id TEXT NOT NULL, split TEXT NOT NULL, prompt TEXT NOT NULL, output TEXT NOT NULL,
            score REAL NOT NULL, passed INTEGER NOT NULL, routed_skill TEXT, router_decision TEXT NOT NULL,
            metadata TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE verdicts (id INTEGER PRIMARY KEY AUTOINCREMENT, capsule_id INTEGER NOT NULL,
            skill TEXT NOT NULL, label TEXT NOT NULL, failure_pattern TEXT NOT NULL, confidence TEXT NOT NULL,
            reason TEXT NOT NULL, round INTEGER NOT NULL);
        CREATE TABLE skill_versions (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            fields TEXT NOT NULL, round INTEGER NOT NULL, reason TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE skill_status (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
            status TEXT NOT NULL, round INTEGER NOT NULL, reason TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE meta_skills (id INTEGER PRIMARY KEY AUTOINCREMENT, suite TEXT NOT NULL, name TEXT NOT NULL,
            body TEXT NOT NULL, active INTEGER NOT NULL, created_round INTEGER NOT NULL);
        CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL, kind TEXT NOT NULL,
            subject TEXT NOT NULL, payload TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER, event TEXT NOT NULL,
            payload TEXT NOT NULL, created_at REAL NOT NULL);
        """
    )


def _v2(db: sqlite3.Connection) -> None:
    """Version 2: bank snapshots per round (for rollback) and lookup indexes on the per-round tables."""
    _run(
        db,
        """
        CREATE TABLE bank_snapshots (id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL,
            names TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE INDEX capsules_round ON capsules (round);
        CREATE INDEX capsules_skill ON capsules (routed_skill);
        CREATE INDEX verdicts_skill ON verdicts (skill);
        CREATE INDEX skill_status_name ON skill_status (name);
        CREATE INDEX skill_versions_name ON skill_versions (name);
        CREATE INDEX meta_skills_suite ON meta_skills (suite, name);
        """
    )


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2]
"""Migration `i` takes a file from schema version `i` to `i + 1`; append new ones, never edit old ones."""
SCHEMA_VERSION = len(MIGRATIONS)

APPEND_ONLY_TABLES = ("verdicts", "skill_versions", "skill_status", "meta_skills", "decisions", "audit",
                      "bank_snapshots")
"""Evidence tables no row of which may ever change or go; `capsules` only refuses UPDATE (pruning deletes)."""


def _guards() -> list[tuple[str, str, str]]:
    """(trigger name, table, statement) of every append-only guard."""
    guarded = [(table, op) for table in APPEND_ONLY_TABLES for op in ("UPDATE", "DELETE")] + [("capsules", "UPDATE")]
    return [(f"append_only_{table}_{op.lower()}", table, op) for table, op in guarded]


def ensure_append_only(db: sqlite3.Connection) -> None:
    """Create the triggers that refuse UPDATE and DELETE on the evidence tables, where they are missing."""
    for name, table, op in _guards():
        db.execute(
            f"CREATE TRIGGER IF NOT EXISTS {name} BEFORE {op} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, 'the Ratchet ledger is append-only: {op} on {table} refused'); END"
        )


def migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring the open file (inside the caller's write transaction) up to `SCHEMA_VERSION`; refuse a newer one."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise LedgerError(
            f"{path}: ledger schema version {version} is newer than this code's {SCHEMA_VERSION}; "
            "upgrade agent-evolve to read it"
        )
    for step in MIGRATIONS[version:]:
        step(db)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    ensure_append_only(db)


def check_header(path: Path) -> None:
    """Refuse a file that exists but is not SQLite (an empty one included: it is no ledger, and opening it would
    start a new, empty one in its place), before SQLite reports it as a vague 'not a database'."""
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except (OSError, NotRegularFileError) as exc:
        raise LedgerError(f"{path}: cannot read the Ratchet ledger: {exc}") from None
    if not header:
        raise LedgerError(f"{path}: not a Ratchet ledger (the file is empty); remove it to start a new ledger")
    if header != SQLITE_HEADER:
        raise LedgerError(f"{path}: not a Ratchet ledger (the file is not an SQLite database)")
