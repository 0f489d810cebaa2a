"""Ratchet's evidence ledger: one append-only SQLite file per run (schema in `ledger_schema`), so any round can be
audited and rolled back; WAL, a busy timeout and one connection per thread make concurrent writers safe."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Self

from agent_evolve.algorithms.ratchet.ledger_schema import SCHEMA_VERSION, LedgerError, check_header, create_or_check
from agent_evolve.algorithms.ratchet.records import (CONFIDENCES, SKILL_STATUSES, VERDICT_LABELS, Capsule,
                                                     CriticVerdict, Decision, MetaSkill, RatchetSkill, SkillStatus)
from agent_evolve.engine.records import RunRecords

__all__ = ["LEDGER_FILE", "SCHEMA_VERSION", "Ledger", "LedgerError", "ledger_path"]

LEDGER_FILE = "ratchet.sqlite"
BUSY_TIMEOUT_MS = 30_000  # how long a writer waits for another writer's lock before failing


def _skill_fields(skill: RatchetSkill) -> dict[str, Any]:
    """A skill's versioned fields (everything but its name and status)."""
    return {name: value for name, value in asdict(skill).items() if name not in ("name", "status")}


def ledger_path(workspace_path: str | Path) -> Path:
    """The run's ledger file, in the workspace's records folder (ignored by git, so rollbacks keep it)."""
    return RunRecords(Path(workspace_path)).root / LEDGER_FILE


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _check(value: str, allowed: tuple[str, ...], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(allowed)}")


def _filters(**columns: Any) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause over the columns given a value (None means no filter)."""
    chosen = [(column, value) for column, value in columns.items() if value is not None]
    if not chosen:
        return "", ()
    return " WHERE " + " AND ".join(f"{column} = ?" for column, _ in chosen), tuple(v for _, v in chosen)


def _insert(db: sqlite3.Connection, table: str, **values: Any) -> int:
    """Append one row of `values` (column: value) to `table`; its id."""
    cursor = db.execute(f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                        tuple(values.values()))
    return int(cursor.lastrowid or 0)


def _status_of(db: sqlite3.Connection, name: str) -> str | None:
    """A skill's latest status (every skill gets one when first put), None for a name never seen."""
    row = db.execute("SELECT status FROM skill_status WHERE name = ? ORDER BY id DESC LIMIT 1", (name,)).fetchone()
    return row[0] if row else None


def _append_status(db: sqlite3.Connection, name: str, status: str, round: int, reason: str) -> None:
    _insert(db, "skill_status", name=name, status=status, round=round, reason=reason, created_at=time.time())


class Ledger:
    """The evidence ledger of one run; open with `Ledger.open(path)`, use from any number of threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def open(cls, path: str | Path) -> Ledger:
        """Open the ledger at `path`, creating it and its folder if needed; LedgerError for another schema."""
        ledger = cls(Path(path))
        try:
            ledger.path.parent.mkdir(parents=True, exist_ok=True)
            check_header(ledger.path)
            with ledger.transaction() as db:
                create_or_check(db, ledger.path)
        except BaseException:
            ledger.close()
            raise
        return ledger

    def close(self) -> None:
        """Close every thread's connection; the ledger cannot be used afterwards."""
        with self._lock:
            self._closed = True
            for connection in self._connections:
                connection.close()
            self._connections.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # connections and transactions

    def _db(self) -> sqlite3.Connection:
        if self._closed:
            raise LedgerError(f"{self.path}: the ledger is closed")
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is not None:
            return connection
        with self._lock:
            try:
                # per-thread connections; check_same_thread off only so that close() may close them all
                connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                             check_same_thread=False)
                connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                connection.execute("PRAGMA journal_mode = WAL")  # with NORMAL: never corrupt; a power cut may drop
                connection.execute("PRAGMA synchronous = NORMAL")  # the last commits
            except sqlite3.Error as exc:
                raise LedgerError(f"{self.path}: cannot open the Ratchet ledger: {exc}") from None
            self._connections.append(connection)
        self._local.connection = connection
        return connection

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (on this thread): a crash leaves all or none of its writes. The write lock is taken
        up front so concurrent writers queue, never deadlock; nested inside another, it is a part of that one."""
        db = self._db()
        if db.in_transaction:  # autocommit connections: only an open `transaction()` is one
            yield db
            return
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{self.path}: cannot write the Ratchet ledger: {exc}") from None

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db().execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{self.path}: cannot read the Ratchet ledger: {exc}") from None

    # capsules

    def add_capsules(self, capsules: list[Capsule]) -> list[int]:
        """Append task attempts in one transaction; their ids, in order."""
        with self.transaction() as db:
            return [_insert(db, "capsules", **{**asdict(c), "score": float(c.score), "passed": int(c.passed),
                                              "metadata": _dumps(c.metadata)}) for c in capsules]

    def capsules(self, round: int | None = None, skill: str | None = None,
                 split: str | None = None) -> list[tuple[int, Capsule]]:
        """Task attempts in the order written, filtered by round, routed skill and split."""
        where, params = _filters(round=round, routed_skill=skill, split=split)
        rows = self._read(f"SELECT * FROM capsules{where} ORDER BY id", params)  # Capsule's fields, in order
        return [(row[0], Capsule(*row[1:7], bool(row[7]), row[8], row[9], json.loads(row[10]), row[11]))
                for row in rows]

    def routing_by_round(self, split: str | None = None) -> dict[int, tuple[int, int]]:
        """Per round: (attempts, attempts routed to a skill), without loading the capsules' texts."""
        where, params = _filters(split=split)
        rows = self._read(f"SELECT round, COUNT(*), COUNT(routed_skill) FROM capsules{where} GROUP BY round"
                          " ORDER BY round", params)
        return {row[0]: (row[1], row[2]) for row in rows}

    def prune_capsules(self, keep_days: float) -> int:
        """Delete capsules older than `keep_days` (the only deletion; verdicts and decisions stay); how many."""
        if keep_days < 0:
            raise ValueError(f"keep_days must be at least 0, got {keep_days}")
        cutoff = time.time() - keep_days * 86_400  # seconds a day
        with self.transaction() as db:
            removed = db.execute("DELETE FROM capsules WHERE created_at < ?", (cutoff,)).rowcount
            _insert(db, "audit", round=None, event="capsule_prune",
                   payload=_dumps({"keep_days": keep_days, "removed": removed}), created_at=time.time())
        return int(removed)

    # verdicts

    def add_verdict(self, verdict: CriticVerdict) -> None:
        """Append the critic's verdict on one capsule."""
        _check(verdict.label, VERDICT_LABELS, "verdict label")
        _check(verdict.confidence, CONFIDENCES, "verdict confidence")
        with self.transaction() as db:
            _insert(db, "verdicts", **asdict(verdict))

    def verdicts(self, skill: str | None = None, round: int | None = None) -> list[CriticVerdict]:
        """Verdicts in the order written, filtered by skill and round."""
        where, params = _filters(skill=skill, round=round)
        rows = self._read(f"SELECT * FROM verdicts{where} ORDER BY id", params)  # CriticVerdict's fields, in order
        return [CriticVerdict(*row[1:]) for row in rows]

    # skills

    def put_skill(self, skill: RatchetSkill, round: int, reason: str) -> None:
        """Record a new skill or a new version of its fields; a changed status is a new status row too."""
        _check(skill.status, SKILL_STATUSES, f"skill {skill.name!r} status")
        with self.transaction() as db:
            _insert(db, "skill_versions", name=skill.name, fields=_dumps(_skill_fields(skill)), round=round,
                    reason=reason, created_at=time.time())
            if _status_of(db, skill.name) != skill.status:
                _append_status(db, skill.name, skill.status, round, reason)

    def set_status(self, name: str, status: SkillStatus, round: int, reason: str) -> None:
        """Append a status change (ACTIVE, DEPRECATED, CANDIDATE) of a known skill."""
        _check(status, SKILL_STATUSES, f"skill {name!r} status")
        with self.transaction() as db:
            if _status_of(db, name) is None:
                raise LedgerError(f"{self.path}: no skill named {name!r} in the ledger")
            _append_status(db, name, status, round, reason)

    def skill(self, name: str) -> RatchetSkill | None:
        """The latest version of a skill with its current status, or None if the ledger never saw it."""
        return next((s for s in self.skills() if s.name == name), None)

    def skills(self, status: SkillStatus | None = None) -> list[RatchetSkill]:
        """Every skill's latest version (in order of first appearance), optionally only those with `status`."""
        rows = self._read(
            "SELECT v.name, v.fields, s.status"
            " FROM (SELECT name, MAX(id) AS last, MIN(id) AS first FROM skill_versions GROUP BY name) k"
            " JOIN skill_versions v ON v.id = k.last"
            " JOIN (SELECT name, MAX(id) AS last FROM skill_status GROUP BY name) t ON t.name = k.name"
            " JOIN skill_status s ON s.id = t.last ORDER BY k.first")
        found = [RatchetSkill(name=row[0], status=row[2], **json.loads(row[1])) for row in rows]
        return [s for s in found if status is None or s.status == status]

    def status_history(self, name: str) -> list[tuple[int, SkillStatus, str]]:
        """Every status a skill has had, oldest first: (round, status, reason)."""
        rows = self._read("SELECT round, status, reason FROM skill_status WHERE name = ? ORDER BY id", (name,))
        return [(row[0], row[1], row[2]) for row in rows]

    # meta-skills

    def put_meta_skill(self, meta: MetaSkill) -> None:
        """Record a meta-skill version; an active one deactivates the suite's other active ones (one per suite)."""
        with self.transaction() as db:
            others = [m for m in self.meta_skills(meta.suite) if meta.active and m.active and m.name != meta.name]
            for version in [*(replace(other, active=False) for other in others), meta]:
                _insert(db, "meta_skills", **{**asdict(version), "active": int(version.active)})

    def meta_skills(self, suite: str | None = None) -> list[MetaSkill]:
        """The latest version of every meta-skill (of `suite`, or of all suites), in order of first appearance;
        inside a write, on its connection (one per thread)."""
        rows = self._read(
            "SELECT m.suite, m.name, m.body, m.active, m.created_round FROM meta_skills m WHERE m.id ="
            " (SELECT MAX(n.id) FROM meta_skills n WHERE n.suite = m.suite AND n.name = m.name)"
            " ORDER BY (SELECT MIN(f.id) FROM meta_skills f WHERE f.suite = m.suite AND f.name = m.name)")
        return [MetaSkill(row[0], row[1], row[2], bool(row[3]), row[4]) for row in rows if suite in (None, row[0])]

    # decisions, audit events, bank snapshots

    def add_decision(self, decision: Decision) -> None:
        """Append one governed decision with the numbers behind it."""
        with self.transaction() as db:
            _insert(db, "decisions", **{**asdict(decision), "payload": _dumps(decision.payload)},
                    created_at=time.time())

    def decisions(self, kind: str | None = None, round: int | None = None) -> list[Decision]:
        """Decisions in the order written, filtered by kind and round."""
        where, params = _filters(kind=kind, round=round)
        rows = self._read(f"SELECT round, kind, subject, payload FROM decisions{where} ORDER BY id", params)
        return [Decision(row[0], row[1], row[2], json.loads(row[3])) for row in rows]

    def audit(self, event: str, payload: dict[str, Any], round: int | None = None) -> None:
        """Append an audit event (what happened, to what, and why) for `agent-evolve audit`."""
        with self.transaction() as db:
            _insert(db, "audit", round=round, event=event, payload=_dumps(payload), created_at=time.time())

    def audit_events(self, limit: int | None = None, event: str | None = None,
                     round: int | None = None) -> list[dict[str, Any]]:
        """Audit events newest first, each {id, round, event, payload, created_at}, filtered by event and round."""
        where, params = _filters(event=event, round=round)
        rows = self._read(f"SELECT id, round, event, payload, created_at FROM audit{where} ORDER BY id DESC LIMIT ?",
                          (*params, -1 if limit is None else limit))
        return [dict(zip(("id", "round", "event", "payload", "created_at"), row), payload=json.loads(row[3]))
                for row in rows]

    def audit_trail(self, limit: int | None = None) -> list[dict[str, Any]]:
        """What happened, newest first: audit events (ids `a<N>`) and decisions (`d<N>`), less the decisions made
        `by: user` (a user's action is also an audit event, so it shows once)."""
        rows = self._read("SELECT id, round, kind, subject, payload, created_at FROM decisions ORDER BY id DESC"
                          " LIMIT ?", (-1 if limit is None else limit,))
        events = [{**e, "id": f"a{e['id']}"} for e in self.audit_events(limit)]
        events += [{"id": f"d{row[0]}", "round": row[1], "event": row[2], "payload": {"subject": row[3], **payload},
                    "created_at": row[5]} for row in rows if (payload := json.loads(row[4])).get("by") != "user"]
        merged = sorted(events, key=lambda e: e["created_at"], reverse=True)
        return merged if limit is None else merged[:limit]

    def last_round(self) -> int:
        """The latest round anything was recorded for (0 for a new ledger): where a user's action is filed."""
        rows = self._read("SELECT MAX(r) FROM (SELECT MAX(round) AS r FROM capsules UNION ALL SELECT MAX(round) FROM"
                          " decisions UNION ALL SELECT MAX(round) FROM skill_status UNION ALL SELECT MAX(round) FROM"
                          " bank_snapshots)")
        return int(rows[0][0] or 0)

    def snapshot_bank(self, round: int, skills: Sequence[RatchetSkill | str]) -> None:
        """Record the active bank after `round` in order, each skill with its fields and state (a name alone is
        accepted for a bank without state), so a rollback restores the skills as they were."""
        entries = [s if isinstance(s, str) else {"name": s.name, "status": s.status, "fields": _skill_fields(s)}
                   for s in skills]
        with self.transaction() as db:
            _insert(db, "bank_snapshots", round=round, names=_dumps(entries), created_at=time.time())

    def bank_at(self, round: int) -> list[str]:
        """The names of the bank as last snapshotted at or before `round` ([] before the first snapshot)."""
        return [e if isinstance(e, str) else e["name"] for e in self._snapshot_at(round)]

    def bank_skills_at(self, round: int) -> list[RatchetSkill]:
        """The bank as last snapshotted at or before `round`, each skill with its fields and state then (a snapshot
        of names only, as older ledgers hold, gives each skill's latest version)."""
        found = [self.skill(e) if isinstance(e, str)
                 else RatchetSkill(name=e["name"], status=e["status"], **e["fields"]) for e in self._snapshot_at(round)]
        return [s for s in found if s is not None]

    def _snapshot_at(self, round: int) -> list[Any]:
        rows = self._read("SELECT names FROM bank_snapshots WHERE round <= ? ORDER BY round DESC, id DESC LIMIT 1",
                          (round,))
        return list(json.loads(rows[0][0])) if rows else []
