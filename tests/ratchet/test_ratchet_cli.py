"""Ratchet's CLI over a ledger filled in the test: skill list/show/load/retire/unretire, meta, audit, prune."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path
from agent_evolve.algorithms.ratchet.records import (
    Capsule,
    Decision,
    MetaSkill,
    RatchetSkill,
    CriticVerdict,
)
from agent_evolve.cli.main import cli

BANK = """\
- id: sliding_window
  description: tasks over a fixed-size contiguous span
  intent: maintain a running window
  do_not_retire: true
- id: check_bounds
  description: index arithmetic near the ends of a list
  intent: test the first and last index
"""


def skill(name: str, **changes: object) -> RatchetSkill:
    fields: dict[str, object] = {
        "name": name, "description": f"when {name} applies", "intent": f"do {name}", "signals_match": [],
        "applies_when": "", "key_insight": "", "common_pitfalls": [], "verify_before_returning": [], "body": "",
    }
    return RatchetSkill(**(fields | changes))  # type: ignore[arg-type]


def invoke(*args: str) -> Result:
    """Run a command with a console wide enough for one line per table row."""
    return CliRunner(env={"COLUMNS": "200"}).invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "skills").mkdir(parents=True)
    with Ledger.open(ledger_path(root)) as ledger:
        ledger.put_skill(skill("helpful"), 1, "synthesised from a cluster of 3")
        ledger.put_skill(skill("harmful"), 1, "synthesised")
        ledger.set_status("harmful", "DEPRECATED", 4, "contribution -0.30 over 100 trials")
        ids = ledger.add_capsules([
            Capsule(2, "t1", "train", "p", "o", 1.0, True, "helpful", "picked helpful"),
            Capsule(2, "t2", "train", "p", "o", 0.0, False, "harmful", "picked harmful"),
            Capsule(3, "t3", "train", "p", "o", 1.0, True, "helpful", "picked helpful"),
        ])
        ledger.add_verdict(CriticVerdict(ids[0], "helpful", "HELPED", "", "HIGH", "used the window", 2))
        ledger.add_verdict(CriticVerdict(ids[1], "harmful", "HURT", "wrong base case", "MEDIUM", "misled", 2))
        ledger.put_meta_skill(MetaSkill("code", "default-code", "Name the failing input.\nThen the fix.", True, 0))
        ledger.add_decision(Decision(4, "retire", "harmful", {"contribution": -0.3}))
        ledger.audit("retire", {"skill": "harmful", "contribution": -0.3}, round=4)
        ledger.audit("synth", {"skill": "helpful", "cluster": 3}, round=1)
    return root


def test_skill_list_shows_every_skill_with_status_and_evidence(ws: Path) -> None:
    out = invoke("skill", "list", "--workspace", str(ws)).output
    helpful = next(line for line in out.splitlines() if "helpful" in line)
    harmful = next(line for line in out.splitlines() if "harmful" in line)
    assert "ACTIVE" in helpful and helpful.split("│")[5].strip() == "2" and helpful.split("│")[6].strip() == "2"
    assert helpful.split("│")[9].strip() == "1", "the critic's HELPED beside the credit"
    assert "DEPRECATED" in harmful and harmful.split("│")[7].strip() == "1"
    only = invoke("skill", "list", "-w", str(ws), "--status", "ACTIVE").output
    assert "helpful" in only and "harmful" not in only


def test_skill_show_prints_the_skill_md_and_its_status_history(ws: Path) -> None:
    out = invoke("skill", "show", "harmful", "-w", str(ws)).output
    assert out.startswith("---\nname: harmful\n")
    assert "contribution -0.30 over 100 trials" in out and "DEPRECATED" in out


def test_retire_and_unretire_move_the_skill_off_and_back_on_disk_keeping_its_rows(ws: Path) -> None:
    invoke("skill", "unretire", "harmful", "-w", str(ws))
    assert (ws / "skills" / "harmful" / "SKILL.md").is_file()
    result = invoke("skill", "retire", "harmful", "-w", str(ws), "--reason", "still hurts")
    assert "status ACTIVE -> DEPRECATED at round 4 (still hurts)" in result.output
    assert not (ws / "skills" / "harmful").exists()
    with Ledger.open(ledger_path(ws)) as ledger:
        assert [row[1] for row in ledger.status_history("harmful")] == ["ACTIVE", "DEPRECATED", "ACTIVE", "DEPRECATED"]
        assert len(ledger.capsules(skill="harmful")) == 1 and len(ledger.verdicts(skill="harmful")) == 1
        users = [d.kind for d in ledger.decisions(round=4) if d.payload.get("by") == "user"]
        assert users == ["unretire", "retire"]
    assert "status is already DEPRECATED" in invoke("skill", "retire", "harmful", "-w", str(ws)).output


def test_lock_and_unlock_set_do_not_retire_as_a_new_version(ws: Path) -> None:
    assert "do_not_retire False -> True" in invoke("skill", "lock", "helpful", "-w", str(ws)).output
    with Ledger.open(ledger_path(ws)) as ledger:
        locked = ledger.skill("helpful")
        assert locked is not None and locked.do_not_retire and locked.status == "ACTIVE"
    assert "do_not_retire: true" in (ws / "skills" / "helpful" / "SKILL.md").read_text()
    assert "unlocked by the user" in invoke("skill", "unlock", "helpful", "-w", str(ws)).output
    with Ledger.open(ledger_path(ws)) as ledger:
        assert ledger.skill("helpful").do_not_retire is False  # type: ignore[union-attr]
        assert [e["event"] for e in ledger.audit_events(2)] == ["unlock", "lock"]


def test_skill_load_imports_a_yaml_bank_into_the_ledger_and_onto_disk(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    (root / "skills").mkdir(parents=True)
    bank = tmp_path / "bank.yaml"
    bank.write_text(BANK)
    result = invoke("skill", "load", str(bank), "-w", str(root))
    assert "loaded 2 skills" in result.output and "(1 do_not_retire)" in result.output
    assert sorted(p.name for p in (root / "skills").iterdir()) == ["check-bounds", "sliding-window"]
    with Ledger.open(ledger_path(root)) as ledger:
        loaded = ledger.skill("sliding-window")
        assert loaded is not None and loaded.do_not_retire and loaded.origin == "imported"
        assert ledger.audit_events()[0]["event"] == "skill_load"
    assert "sliding-window" in invoke("skill", "list", "-w", str(root)).output


def test_a_bad_bank_is_one_error_line_naming_the_file(tmp_path: Path) -> None:
    bank = tmp_path / "bank.yaml"
    bank.write_text("- {id: a, description: d}\n")
    result = CliRunner().invoke(cli, ["skill", "load", str(bank), "-w", str(tmp_path)])
    assert result.exit_code == 1
    assert f"{bank}: skill 1 ('a'): missing required field 'intent'" in result.output
    assert not ledger_path(tmp_path).exists()


def test_the_audit_shows_the_engine_s_decisions_and_a_user_action_once(ws: Path) -> None:
    with Ledger.open(ledger_path(ws)) as ledger:
        ledger.add_decision(Decision(5, "synth", "off-by-one", {"capsules": [1, 2, 3], "size": 3}))
        ledger.add_decision(Decision(6, "rollback", "round 5", {"restored": ["helpful"]}))
    assert invoke("skill", "lock", "helpful", "-w", str(ws)).exit_code == 0
    with Ledger.open(ledger_path(ws)) as ledger:
        trail = ledger.audit_trail()
    assert [e["event"] for e in trail[:3]] == ["lock", "rollback", "synth"]
    assert [e["event"] for e in trail].count("lock") == 1, "a user's action is its audit event only"
    assert trail[1]["payload"] == {"subject": "round 5", "restored": ["helpful"]} and trail[1]["id"].startswith("d")
    out = invoke("audit", "--limit", "3", "-w", str(ws)).output
    assert "rollback" in out and "off-by-one" in out and "-0.3" not in out, "the older retirement is past the limit"


def test_meta_list_and_audit_with_a_limit(ws: Path) -> None:
    meta = invoke("meta", "list", "-w", str(ws)).output
    assert "default-code" in meta and "Name the failing input." in meta and "yes" in meta
    audit = invoke("audit", "--limit", "1", "-w", str(ws)).output
    assert "synth" in audit and "retire" not in audit
    assert "retire" in invoke("audit", "-w", str(ws)).output


def test_capsule_prune_deletes_only_old_capsules(ws: Path) -> None:
    with Ledger.open(ledger_path(ws)) as ledger:
        ledger.add_capsules([Capsule(1, "old", "train", "p", "o", 0.0, False, None, "NONE",
                                     created_at=time.time() - 100 * 86_400)])
    result = invoke("capsule", "prune", "--keep-days", "90", "-w", str(ws))
    assert "removed 1 capsules older than 90 days; 3 left" in result.output


def test_commands_without_a_ledger_say_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["audit", "-w", str(tmp_path)])
    assert result.exit_code == 1 and "no Ratchet ledger here" in result.output
    missing = CliRunner().invoke(cli, ["skill", "show", "nope", "-w", str(tmp_path)])
    assert missing.exit_code == 1


def routed_trials(ledger: Ledger, name: str, trials: int, hurt: int) -> None:
    """`trials` routed train attempts of `name` from round 2, the first `hurt` failed and judged HURT (the
    contribution is (trials - 2 * hurt) / trials)."""
    ids = ledger.add_capsules([Capsule(2, f"{name}-{i}", "train", "p", "o", float(i >= hurt), i >= hurt, name, name)
                               for i in range(trials)])
    for cid in ids[:hurt]:
        ledger.add_verdict(CriticVerdict(cid, name, "HURT", "misled", "HIGH", "made it worse", 2))


@pytest.fixture
def curated(tmp_path: Path) -> Path:
    root = tmp_path / "run"
    (root / "skills").mkdir(parents=True)
    with Ledger.open(ledger_path(root)) as ledger:
        for name, locked in (("bad", False), ("locked-bad", True), ("young-bad", False)):
            ledger.put_skill(skill(name, do_not_retire=locked), 1, "synthesised")
        routed_trials(ledger, "bad", 100, 55)
        routed_trials(ledger, "locked-bad", 100, 65)
        routed_trials(ledger, "young-bad", 99, 60)
        ledger.audit("start", {"settings": {"retire_min_trials": 100, "retire_threshold": -0.1}}, 0)
    invoke("skill", "unretire", "bad", "-w", str(root))  # puts every active skill on disk
    return root


def test_curate_retires_at_the_boundary_and_reports_locked_skills(curated: Path) -> None:
    dry = invoke("curate", "-w", str(curated), "--dry-run").output
    assert "dry run" in dry and "retire" in dry
    with Ledger.open(ledger_path(curated)) as ledger:
        assert [s.name for s in ledger.skills("ACTIVE")] == ["bad", "locked-bad", "young-bad"]
    out = invoke("curate", "-w", str(curated)).output
    cells = [line.split("│") for line in out.splitlines() if line.count("│") > 4]
    rows = {cell[1].strip(): cell[2].strip() for cell in cells}
    assert rows == {"bad": "retire", "locked-bad": "protected", "young-bad": "keep"}
    with Ledger.open(ledger_path(curated)) as ledger:
        assert [s.name for s in ledger.skills("ACTIVE")] == ["locked-bad", "young-bad"]
        assert ledger.status_history("bad")[-1][1] == "DEPRECATED" and len(ledger.capsules(skill="bad")) == 100
        [decision] = [d for d in ledger.decisions(kind="curate") if d.payload.get("by") == "user"]
        assert decision.payload["threshold"] == -0.1 and len(decision.payload["decisions"]) == 3
    assert not (curated / "skills" / "bad").exists() and (curated / "skills" / "locked-bad").is_dir()
    listed = invoke("skill", "list", "-w", str(curated)).output
    assert "-0.100" in listed and "-0.300" in listed


def test_curate_thresholds_can_be_given(curated: Path) -> None:
    out = invoke("curate", "-w", str(curated), "--min-trials", "20", "--threshold", "0", "--dry-run").output
    assert out.count("retire") >= 2 and ">= 20 trials and <= +0.00" in out


def test_the_runs_settings_come_from_its_latest_start_event_that_has_them(tmp_path: Path) -> None:
    from agent_evolve.algorithms.ratchet.cli import _run_settings
    from agent_evolve.algorithms.ratchet.settings import RatchetSettings

    with Ledger.open(tmp_path / "ratchet.sqlite") as ledger:
        ledger.audit("start", {"settings": {"bank_cap": 7}}, 0)
        ledger.audit("start", {"imported": []}, 0)  # no settings in it: skipped, not a KeyError
        assert _run_settings(ledger).bank_cap == 7
    with Ledger.open(tmp_path / "other.sqlite") as ledger:
        ledger.audit("start", {"settings": None}, 0)
        assert _run_settings(ledger) == RatchetSettings()
