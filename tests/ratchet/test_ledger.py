"""The evidence ledger: concurrent writers lose nothing, history is append-only, one schema, bad files fail clearly."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from agent_evolve.algorithms.ratchet.ledger import (
    LEDGER_FILE,
    SCHEMA_VERSION,
    Ledger,
    LedgerError,
    ledger_path,
)
from agent_evolve.algorithms.ratchet.ledger_schema import SCHEMA
from agent_evolve.algorithms.ratchet.records import (
    Capsule,
    Decision,
    MetaSkill,
    RatchetSkill,
    CriticVerdict,
)
from agent_evolve.contract.paths import RECORDS_DIR


def capsule(round: int = 1, task: str = "t1", skill: str | None = "s", *, split: str = "train",
            passed: bool = True, created_at: float | None = None) -> Capsule:
    extra = {} if created_at is None else {"created_at": created_at}
    return Capsule(round, task, split, f"prompt {task}", "output", 1.0 if passed else 0.0, passed, skill,
                   "picked s" if skill else "NONE", {"tokens": 3}, **extra)


def skill(name: str = "s", **changes: object) -> RatchetSkill:
    fields: dict[str, object] = {
        "name": name, "description": f"{name} does X", "intent": "do X", "signals_match": ["x"],
        "applies_when": "x appears", "key_insight": "think", "common_pitfalls": ["off by one"],
        "verify_before_returning": ["run it"], "body": "Body.",
    }
    fields.update(changes)
    return RatchetSkill(**fields)  # type: ignore[arg-type]


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    with Ledger.open(tmp_path / LEDGER_FILE) as opened:
        yield opened


def test_ledger_path_is_in_the_records_folder(tmp_path: Path) -> None:
    assert ledger_path(tmp_path / "ws") == tmp_path / "ws" / RECORDS_DIR / LEDGER_FILE


def test_eight_threads_writing_capsules_at_once_lose_none(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def write(ledger: Ledger, worker: int) -> None:
        try:
            start.wait()
            for i in range(50):
                ledger.add_capsules([capsule(task=f"w{worker}-{i}")])
            ledger.add_capsules([capsule(task=f"w{worker}-batch{i}") for i in range(10)])
        except BaseException as exc:  # noqa: BLE001 - collected and re-raised by the test
            errors.append(exc)

    with Ledger.open(path) as shared, Ledger.open(path) as second:
        threads = [threading.Thread(target=write, args=(shared if n % 2 else second, n)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        rows = shared.capsules()
    assert len(rows) == 8 * 60
    assert len({cid for cid, _ in rows}) == 8 * 60
    assert {c.task_id for _, c in rows} == {f"w{w}-{i}" for w in range(8) for i in range(50)} | {
        f"w{w}-batch{i}" for w in range(8) for i in range(10)}


def test_capsules_round_trip_and_filter(ledger: Ledger) -> None:
    ids = ledger.add_capsules([capsule(1, "a", "s"), capsule(1, "b", None), capsule(2, "c", "s", split="holdout")])
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert ledger.capsules()[0] == (ids[0], capsule(1, "a", "s", created_at=ledger.capsules()[0][1].created_at))
    assert [c.task_id for _, c in ledger.capsules(round=1)] == ["a", "b"]
    assert [c.task_id for _, c in ledger.capsules(skill="s")] == ["a", "c"]
    assert [c.task_id for _, c in ledger.capsules(split="holdout", skill="s")] == ["c"]
    assert ledger.capsules()[1][1].routed_skill is None and ledger.capsules()[0][1].metadata == {"tokens": 3}


def test_prune_deletes_only_capsules_older_than_the_cutoff(ledger: Ledger) -> None:
    old = time.time() - 10 * 86_400
    [first] = ledger.add_capsules([capsule(task="old", created_at=old)])
    ledger.add_verdict(CriticVerdict(first, "s", "HELPED", "none", "HIGH", "fixed it", 1))
    ledger.add_capsules([capsule(task="new")])
    assert ledger.prune_capsules(keep_days=30) == 0
    assert ledger.prune_capsules(keep_days=7) == 1
    assert [c.task_id for _, c in ledger.capsules()] == ["new"]
    assert len(ledger.verdicts()) == 1
    assert ledger.audit_events()[0]["event"] == "capsule_prune"
    assert ledger.audit_events()[0]["payload"] == {"keep_days": 7, "removed": 1}
    with pytest.raises(ValueError, match="keep_days"):
        ledger.prune_capsules(-1)


def test_verdicts_filter_and_reject_unknown_labels(ledger: Ledger) -> None:
    ledger.add_verdict(CriticVerdict(1, "s", "HURT", "wrong base case", "MEDIUM", "broke it", 1))
    ledger.add_verdict(CriticVerdict(2, "t", "NEUTRAL", "", "LOW", "no change", 2))
    assert ledger.verdicts(skill="s") == [CriticVerdict(1, "s", "HURT", "wrong base case", "MEDIUM", "broke it", 1)]
    assert [v.skill for v in ledger.verdicts(round=2)] == ["t"]
    with pytest.raises(ValueError, match="verdict label 'GOOD'"):
        ledger.add_verdict(CriticVerdict(3, "s", "GOOD", "", "LOW", "", 3))  # type: ignore[arg-type]


def test_a_retired_skill_keeps_its_rows_and_status_history(ledger: Ledger) -> None:
    ledger.put_skill(skill("s"), round=1, reason="synthesised from cluster 3")
    ledger.put_skill(skill("s", body="Better body."), round=2, reason="re-synthesised")
    ledger.set_status("s", "DEPRECATED", round=5, reason="contribution -0.20 over 120 trials")
    retired = ledger.skill("s")
    assert retired is not None and retired.status == "DEPRECATED" and retired.body == "Better body."
    assert ledger.status_history("s") == [(1, "ACTIVE", "synthesised from cluster 3"),
                                          (5, "DEPRECATED", "contribution -0.20 over 120 trials")]
    assert ledger.skills(status="ACTIVE") == [] and [s.name for s in ledger.skills()] == ["s"]
    ledger.set_status("s", "ACTIVE", round=6, reason="unretired by the user")
    assert [row[1] for row in ledger.status_history("s")] == ["ACTIVE", "DEPRECATED", "ACTIVE"]


def test_put_skill_versions_fields_and_records_status_changes(ledger: Ledger) -> None:
    ledger.put_skill(skill("b", origin="imported", do_not_retire=True), 0, "bank import")
    ledger.put_skill(skill("a", status="CANDIDATE"), 1, "synth")
    ledger.put_skill(skill("a"), 2, "promoted")
    assert ledger.skill("b") == skill("b", origin="imported", do_not_retire=True)
    assert [s.name for s in ledger.skills()] == ["b", "a"]
    assert [s.name for s in ledger.skills(status="ACTIVE")] == ["b", "a"]
    assert ledger.status_history("a") == [(1, "CANDIDATE", "synth"), (2, "ACTIVE", "promoted")]
    assert ledger.skill("missing") is None
    with pytest.raises(LedgerError, match="no skill named 'missing'"):
        ledger.set_status("missing", "ACTIVE", 1, "x")
    with pytest.raises(ValueError, match="status 'RETIRED'"):
        ledger.set_status("a", "RETIRED", 1, "x")  # type: ignore[arg-type]


def test_one_active_meta_skill_per_suite(ledger: Ledger) -> None:
    ledger.put_meta_skill(MetaSkill("code", "m1", "Write tests first.", True, 0))
    ledger.put_meta_skill(MetaSkill("math", "k1", "Check units.", True, 0))
    ledger.put_meta_skill(MetaSkill("code", "m2", "Name the edge cases.", True, 10))
    assert [(m.name, m.active) for m in ledger.meta_skills("code")] == [("m1", False), ("m2", True)]
    assert [m.name for m in ledger.meta_skills() if m.active] == ["k1", "m2"]


def test_decisions_audit_and_bank_snapshots(ledger: Ledger) -> None:
    ledger.add_decision(Decision(3, "retire", "s", {"contribution": -0.2, "trials": 120}))
    ledger.add_decision(Decision(4, "rollback", "bank", {"best_round": 2}))
    assert ledger.decisions(kind="retire") == [Decision(3, "retire", "s", {"contribution": -0.2, "trials": 120})]
    assert [d.kind for d in ledger.decisions(round=4)] == ["rollback"]
    for n in range(3):
        ledger.audit("synth", {"n": n}, round=n)
    assert [e["payload"]["n"] for e in ledger.audit_events()] == [2, 1, 0]
    assert [e["round"] for e in ledger.audit_events(limit=2)] == [2, 1]
    assert [e["payload"]["n"] for e in ledger.audit_events(event="synth", round=1)] == [1]
    ledger.snapshot_bank(1, [skill("a")])
    ledger.snapshot_bank(3, [skill("a"), skill("b", version="0.2.0")])
    assert ledger.bank_at(0) == [] and ledger.bank_at(1) == ["a"]
    assert ledger.bank_at(2) == ["a"] and ledger.bank_at(9) == ["a", "b"]
    assert ledger.bank_skills_at(9) == [skill("a"), skill("b", version="0.2.0")], "each skill as it was"


def test_a_snapshot_of_names_alone_still_reads(ledger: Ledger) -> None:
    """Ledgers written before snapshots kept each skill's state (schema 2 too) hold a list of names."""
    ledger.put_skill(skill("a", version="0.3.0"), 1, "new")
    with ledger.transaction() as db:
        db.execute("INSERT INTO bank_snapshots (round, names, created_at) VALUES (1, '[\"a\", \"gone\"]', 0)")
    assert ledger.bank_at(1) == ["a", "gone"]
    assert ledger.bank_skills_at(1) == [ledger.skill("a")], "a name alone gives the skill's latest version"
    ledger.snapshot_bank(2, ["a"])
    assert ledger.bank_at(2) == ["a"]


def test_a_transaction_records_all_of_its_writes_or_none(ledger: Ledger) -> None:
    with pytest.raises(RuntimeError), ledger.transaction():
        ledger.put_skill(skill("a"), 1, "new")
        ledger.add_decision(Decision(1, "synth", "a", {}))
        raise RuntimeError("killed")
    assert ledger.skills() == [] and ledger.decisions() == []
    with ledger.transaction():
        ledger.put_skill(skill("a"), 1, "new")
        ledger.add_decision(Decision(1, "synth", "a", {}))
    assert [s.name for s in ledger.skills()] == ["a"] and len(ledger.decisions()) == 1


def test_a_new_ledger_gets_the_one_schema_at_its_version(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    Ledger.open(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchone()[0] == len(SCHEMA)


def test_an_older_schema_is_refused_naming_the_file_and_its_schema_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    db = sqlite3.connect(path)
    db.execute(SCHEMA[0])  # the capsules table of a version-1 file
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with pytest.raises(LedgerError, match=f"{path}: ledger schema version 1 is older than this code's 2, .*migrated"):
        Ledger.open(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type != 'table' OR name = 'capsules'")] \
        == ["capsules"]


def test_a_newer_schema_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(LedgerError, match=f"{path}: ledger schema version {SCHEMA_VERSION + 1} is newer"):
        Ledger.open(path)


def test_a_file_that_is_not_sqlite_is_refused_naming_it_and_kept(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    path.write_text("capsules: not a database\n")
    with pytest.raises(LedgerError, match=f"{path}: not a Ratchet ledger"):
        Ledger.open(path)
    assert path.read_text() == "capsules: not a database\n"


def test_a_closed_ledger_says_so(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path / LEDGER_FILE)
    ledger.close()
    with pytest.raises(LedgerError, match="closed"):
        ledger.capsules()


def test_routing_counts_and_the_latest_round(ledger: Ledger) -> None:
    assert ledger.last_round() == 0 and ledger.routing_by_round() == {}
    ledger.add_capsules([capsule(1, "a", None), capsule(1, "b", "s"), capsule(2, "c", "s", split="holdout")])
    ledger.add_decision(Decision(5, "curate", "bank", {}))
    assert ledger.routing_by_round() == {1: (2, 1), 2: (1, 1)}
    assert ledger.routing_by_round(split="train") == {1: (2, 1)}
    assert ledger.last_round() == 5
