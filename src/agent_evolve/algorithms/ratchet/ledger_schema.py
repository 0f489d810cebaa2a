"""The ledger's one schema, created whole in a new file (any other is refused, nothing is migrated); triggers make
the evidence tables append-only (capsules refuse only UPDATE: `prune_capsules`, audited, is the one deletion)."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from agent_evolve.contract.regular_files import NotRegularFileError, open_regular
from agent_evolve.errors import WorkspaceError

SQLITE_HEADER = b"SQLite format 3\x00"
SCHEMA_VERSION = 2
"""The `PRAGMA user_version` of `SCHEMA` (every committed ledger is at it); files of any other are refused."""

APPEND_ONLY_TABLES = ("verdicts", "skill_versions", "skill_status", "meta_skills", "decisions", "audit",
                      "bank_snapshots")
"""Evidence tables no row of which may ever change or go; `capsules` only refuses UPDATE (pruning deletes)."""

_TABLES = """
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
CREATE TABLE bank_snapshots (id INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL,
    names TEXT NOT NULL, created_at REAL NOT NULL);
CREATE INDEX capsules_round ON capsules (round);
CREATE INDEX capsules_skill ON capsules (routed_skill);
CREATE INDEX verdicts_skill ON verdicts (skill);
CREATE INDEX skill_status_name ON skill_status (name);
CREATE INDEX skill_versions_name ON skill_versions (name);
CREATE INDEX meta_skills_suite ON meta_skills (suite, name)
"""
_GUARDED = [(table, op) for table in APPEND_ONLY_TABLES for op in ("UPDATE", "DELETE")] + [("capsules", "UPDATE")]

SCHEMA: list[str] = [statement.strip() for statement in _TABLES.split(";")] + [
    f"CREATE TRIGGER append_only_{table}_{op.lower()} BEFORE {op} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, 'the Ratchet ledger is append-only: {op} on {table} refused'); END"
    for table, op in _GUARDED
]
"""Every statement of the schema: tables, indexes and the append-only triggers."""

_NAMES = {re.split(r"\s+", statement)[2] for statement in SCHEMA}


class LedgerError(WorkspaceError):
    """A ledger file is not SQLite, has another schema, or cannot be written; the message names it."""


def create_or_check(db: sqlite3.Connection, path: Path) -> None:
    """Create the schema in a new, empty file (in the caller's write transaction); refuse any file that does not
    hold exactly it, naming the file and what is wrong."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")}
    if version == 0 and not names:
        for statement in SCHEMA:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    elif version > SCHEMA_VERSION:
        raise LedgerError(f"{path}: ledger schema version {version} is newer than this code's {SCHEMA_VERSION}; "
                          "upgrade agent-evolve to read it")
    elif version < SCHEMA_VERSION:
        raise LedgerError(f"{path}: ledger schema version {version} is older than this code's {SCHEMA_VERSION}, "
                          "which reads only its own version (ledgers are not migrated)")
    elif missing := sorted(_NAMES - names):
        raise LedgerError(f"{path}: not a complete Ratchet ledger of schema version {SCHEMA_VERSION}: "
                          f"it lacks {', '.join(missing)}")


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
