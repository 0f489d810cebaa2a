"""The ledger's row helpers: WHERE clauses, appends, the current status and the merged audit trail.

Split from `ledger` so the Ledger class keeps only its public reads and writes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict
from typing import Any

from agent_evolve.algorithms.ratchet.records import MetaSkill


def filters(**columns: Any) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause over the columns given a value (None means no filter)."""
    chosen = [(column, value) for column, value in columns.items() if value is not None]
    if not chosen:
        return "", ()
    return " WHERE " + " AND ".join(f"{column} = ?" for column, _ in chosen), tuple(v for _, v in chosen)


def insert(db: sqlite3.Connection, table: str, **values: Any) -> int:
    """Append one row of `values` (column: value) to `table`; its id."""
    cursor = db.execute(f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                        tuple(values.values()))
    return int(cursor.lastrowid or 0)


def current_status(db: sqlite3.Connection, name: str) -> str | None:
    """A skill's latest status (every skill gets one when first put), None for a name never seen."""
    row = db.execute("SELECT status FROM skill_status WHERE name = ? ORDER BY id DESC LIMIT 1", (name,)).fetchone()
    return row[0] if row else None


def append_status(db: sqlite3.Connection, name: str, status: str, round: int, reason: str) -> None:
    insert(db, "skill_status", name=name, status=status, round=round, reason=reason, created_at=time.time())


def append_meta(db: sqlite3.Connection, meta: MetaSkill) -> None:
    insert(db, "meta_skills", **{**asdict(meta), "active": int(meta.active)})


def merge_trail(events: list[dict[str, Any]], decision_rows: list[tuple[Any, ...]],
                limit: int | None) -> list[dict[str, Any]]:
    """Audit events and decisions (rows of id, round, kind, subject, payload, created_at) newest first.

    A decision's id is `d<N>`, an event's `a<N>`; a user's action is one entry (it is also an audit event), so
    decisions made `by: user` are left out.
    """
    tagged = [{**e, "id": f"a{e['id']}"} for e in events]
    decisions = [
        {"id": f"d{row[0]}", "round": row[1], "event": row[2], "payload": {"subject": row[3], **payload},
         "created_at": row[5]}
        for row in decision_rows if (payload := json.loads(row[4])).get("by") != "user"
    ]
    merged = sorted(tagged + decisions, key=lambda e: e["created_at"], reverse=True)
    return merged if limit is None else merged[:limit]
