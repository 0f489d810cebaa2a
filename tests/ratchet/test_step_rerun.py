"""A Ratchet step re-run after a crash inside it leaves the ledger as one uncrashed run would (no second meta-skill
version, no duplicate decisions, snapshots or audit events)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import ratchet_world
from ratchet_world import make_workspace
from test_scripted_run import run

import agent_evolve as ae
from agent_evolve.algorithms.ratchet import critic
from agent_evolve.algorithms.ratchet.engine import RatchetEngine
from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path

TABLES = ("capsules", "verdicts", "skill_versions", "skill_status", "meta_skills", "decisions", "audit",
          "bank_snapshots")
PARAMS = {"meta_every": 1, "retire_min_trials": 1}  # round 1 refreshes the meta-skill, synthesises and retires


class Crash(BaseException):
    """A kill inside the step: nothing in the loop or the engine handles it."""


def rows(workspace: Path) -> dict[str, list[tuple]]:
    """Every table's rows in order, without their ids and times."""
    with sqlite3.connect(ledger_path(workspace)) as db:
        found = {}
        for table in TABLES:
            cursor = db.execute(f"SELECT * FROM {table} ORDER BY id")
            keep = [i for i, column in enumerate(cursor.description) if column[0] not in ("id", "created_at")]
            found[table] = [tuple(row[i] for i in keep) for row in cursor.fetchall()]
    return found


def crash_after(monkeypatch: pytest.MonkeyPatch, owner: type, method: str, n: int) -> None:
    """Make the `n`-th call of `owner.method` in the run raise Crash once it has returned."""
    original, count = getattr(owner, method), [0]

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        count[0] += 1
        if count[0] == n:
            raise Crash
        return result

    monkeypatch.setattr(owner, method, counted)


@pytest.fixture(scope="module")
def uncrashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[tuple]], dict]:
    """The ledger of one clean round and the round's report."""
    workspace = make_workspace(tmp_path_factory.mktemp("clean") / "ws")
    run(workspace, cycles=1, **PARAMS)
    return rows(workspace), report(workspace)


def report(workspace: Path) -> dict:
    """Round 1's report, as its cycle record holds it."""
    return ae.EvolutionHistory(workspace).cycle_records()[0]["metadata"]["step_metadata"]["ratchet"]


@pytest.mark.parametrize(("owner", "method", "n"), [
    (Ledger, "add_verdict", 5),  # mid-critic
    (Ledger, "put_meta_skill", 2),  # the refreshed meta-skill written (the first call writes the default)
    (Ledger, "add_decision", 1),  # synthesis's first decision
    (Ledger, "put_skill", 2),  # the synthesised skill (the first call imported the workspace's skill)
    (Ledger, "set_status", 1),  # the curator's retirement
    (Ledger, "add_decision", 3),  # the curator's round decision
    (Ledger, "snapshot_bank", 2),  # the round's bank snapshot
    (Ledger, "audit", 2),  # the round's audit event
    (RatchetEngine, "save_state", 1),  # the round recorded whole, the step not yet journaled
])
def test_a_step_rerun_after_a_crash_leaves_the_ledger_as_one_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, uncrashed: tuple[dict[str, list[tuple]], dict],
        owner: type, method: str, n: int) -> None:
    ledger, round_report = uncrashed
    assert {m[1] for m in ledger["meta_skills"]} == {"default-math", "math-r1"}, "the round refreshed its meta"
    assert any(d[1] == "retire" for d in ledger["decisions"]), "the round retired a skill"
    workspace = make_workspace(tmp_path / "ws")
    crash_after(monkeypatch, owner, method, n)
    with pytest.raises(Crash):
        run(workspace, cycles=1, **PARAMS)
    monkeypatch.undo()
    run(workspace, cycles=1, **PARAMS)
    assert rows(workspace) == ledger
    assert report(workspace) == round_report


def test_a_rerun_step_asks_the_critic_again_about_no_capsule_it_failed_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unusable critic reply is audited once per capsule, however often the step runs."""
    answer = ratchet_world._engine_reply
    monkeypatch.setattr(ratchet_world, "_engine_reply", lambda messages: "not a verdict" if (
        messages[0].content == critic.SYSTEM and "poison-helper" in messages[1].content) else answer(messages))
    clean = make_workspace(tmp_path / "clean")
    run(clean, cycles=1, **PARAMS)
    failures = [r for r in rows(clean)["audit"] if r[1] == "critic_failed"]
    assert failures, "the critic failed on the poison skill's capsules"
    workspace = make_workspace(tmp_path / "ws")
    with monkeypatch.context() as patch:
        crash_after(patch, Ledger, "audit", 3)  # after the second critic failure (the first call: "start")
        with pytest.raises(Crash):
            run(workspace, cycles=1, **PARAMS)
    run(workspace, cycles=1, **PARAMS)
    assert rows(workspace) == rows(clean)
    errors = report(workspace)["critic_errors"]
    assert errors == report(clean)["critic_errors"] and len(errors) == len(failures)
