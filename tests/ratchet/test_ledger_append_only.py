"""The Ratchet ledger is append-only by SQLite's own rules, not by convention, and only a ledger file opens as one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent_evolve.algorithms.ratchet.ledger import LEDGER_FILE, SCHEMA_VERSION, Ledger, LedgerError
from agent_evolve.algorithms.ratchet.ledger_schema import SCHEMA
from agent_evolve.algorithms.ratchet.records import Capsule, CriticVerdict, Decision, MetaSkill, RatchetSkill


EVIDENCE = ("verdicts", "skill_versions", "skill_status", "meta_skills", "decisions", "audit", "bank_snapshots")


def filled(path: Path) -> Path:
    """A ledger with one row in every table."""
    with Ledger.open(path) as ledger:
        [capsule_id] = ledger.add_capsules([Capsule(1, "t1", "train", "p", "o", 1.0, True, "s", "picked s", {})])
        ledger.add_verdict(CriticVerdict(capsule_id, "s", "HELPED", "none", "HIGH", "it helped", 1))
        skill = RatchetSkill("s", "s does X", "do X", ["x"], "x appears", "think", ["a"], ["b"], "Body.")
        ledger.put_skill(skill, 1, "synthesised")
        ledger.put_meta_skill(MetaSkill("code", "m1", "Write tests first.", True, 0))
        ledger.add_decision(Decision(1, "retire", "s", {"trials": 3}))
        ledger.audit("synth", {"n": 1}, round=1)
        ledger.snapshot_bank(1, [skill])
    return path


def raw(path: Path, statement: str) -> None:
    db = sqlite3.connect(path)
    try:
        db.execute(statement)
        db.commit()
    finally:
        db.close()


def count(path: Path, table: str) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        db.close()


@pytest.mark.parametrize("table", EVIDENCE)
def test_update_and_delete_on_an_evidence_table_are_refused(tmp_path: Path, table: str) -> None:
    path = filled(tmp_path / LEDGER_FILE)
    before = count(path, table)
    assert before > 0
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw(path, f"UPDATE {table} SET round = 99" if table != "meta_skills" else f"UPDATE {table} SET active = 0")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw(path, f"DELETE FROM {table}")
    assert count(path, table) == before


def test_capsules_cannot_be_rewritten_and_pruning_still_works_and_is_audited(tmp_path: Path) -> None:
    path = filled(tmp_path / LEDGER_FILE)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw(path, "UPDATE capsules SET passed = 0, score = 0")
    with Ledger.open(path) as ledger:
        assert ledger.prune_capsules(keep_days=0) == 1
        assert ledger.audit_events(limit=1)[0]["event"] == "capsule_prune"


def test_an_empty_file_is_refused_naming_it_and_kept(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    path.touch()
    with pytest.raises(LedgerError, match=f"{path}: not a Ratchet ledger .*empty"):
        Ledger.open(path)
    assert path.read_bytes() == b""


def test_a_file_of_garbage_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    path.write_bytes(b"\x00\xff" * 100)
    with pytest.raises(LedgerError, match=f"{path}: not a Ratchet ledger"):
        Ledger.open(path)


def test_a_ledger_without_its_guards_is_refused_naming_what_it_lacks(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    db = sqlite3.connect(path)
    for statement in SCHEMA:
        if not statement.startswith("CREATE TRIGGER append_only_audit"):
            db.execute(statement)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.commit()
    db.close()
    for _ in range(2):  # refused every time: nothing is added on open
        with pytest.raises(LedgerError, match=f"{path}: not a complete Ratchet ledger .*lacks "
                                              "append_only_audit_delete, append_only_audit_update$"):
            Ledger.open(path)
