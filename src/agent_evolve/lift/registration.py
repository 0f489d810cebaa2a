"""Registered plans: what decides the numbers (code hash, plan, config, test ids, metric) hashed into the plan id in
plan.json before anything runs, so a folder resumes under no other plan; `verify_folder` checks the ledgers."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_evolve.config import EvolveConfig
from agent_evolve.errors import ConfigError
from agent_evolve.lift.ledger import LEDGER_FILE, first_bad_row, ids_hash, missing_scorings, read_rows, user_store
from agent_evolve.lift.shapes import read_plan

PLAN_FILE = "plan.json"
PLAN_FORMAT = 2
METRIC = ("mean per-task test score; lift = arm minus control, paired task by task, each task's score averaged "
          "over the draws and seeds; 95% bootstrap CI over tasks; sign-test p")
UNREGISTERED = "unregistered"
PACKAGE = Path(__file__).resolve().parents[1]


def source_hash(package: Path = PACKAGE) -> str:
    """A hash of every Python file of the package: the code that ran, with or without git."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def git_state(where: Path = PACKAGE) -> dict[str, Any]:
    """The commit checked out where the package lives and whether its tree differs from it; None without git."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit.strip() if commit else None, "dirty": None if status is None else bool(status.strip())}


def plan_record(plan: Mapping[str, Any], config: EvolveConfig, test_ids: list[str], split_hash: str,
                agent_key: str) -> dict[str, Any]:
    """plan.json's content, its id included; `split_hash` names the benchmark's whole test split (its ledger),
    `agent_key` the seed workspace's content (its prompts are no Python file of the code hash)."""
    record: dict[str, Any] = {
        "format": PLAN_FORMAT, "code": {"source": source_hash(), **git_state()}, "agent_workspace": agent_key,
        "plan": json.loads(json.dumps(dict(plan))), "config": json.loads(json.dumps(config.to_dict())),
        "test": {"ids_hash": ids_hash(test_ids), "count": len(test_ids), "split_hash": split_hash,
                 "ids": list(test_ids)},
        "metric": METRIC, "registered": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    record["id"] = plan_id(record)
    return record


def plan_id(record: Mapping[str, Any]) -> str:
    """The hash of what decides the numbers: the record but its id, time, commit and dirty flag."""
    body = {k: v for k, v in record.items() if k not in ("id", "registered", "code")}
    body["code"] = {"source": record["code"]["source"]}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def is_registered(saved: Any) -> bool:
    return isinstance(saved, dict) and saved.get("format") == PLAN_FORMAT and "id" in saved


def legacy_id(saved: Mapping[str, Any]) -> str:
    """The name an unregistered folder's plan goes by in a ledger."""
    return f"{UNREGISTERED}-{hashlib.sha256(json.dumps(saved, sort_keys=True).encode()).hexdigest()[:12]}"


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _flat(item, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): value}


def differences(saved: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    """What differs between two plan records, as `key: saved -> wanted` lines. A config key the saved plan lacks
    (a setting added since) that keeps its default is no difference; nor are the id, time, commit and dirty flag."""
    defaults = _flat({"config": json.loads(json.dumps(EvolveConfig().to_dict()))})
    old, new = _flat(dict(saved)), _flat(dict(wanted))
    skip = {"id", "registered", "code.commit", "code.dirty"}
    lines = []
    for key in sorted(set(old) | set(new)):
        if key in skip or key == "test.ids":  # the ids differ exactly when their hash does
            continue
        before = old.get(key, defaults.get(key, "(absent)"))
        after = new.get(key, "(absent)")
        if before != after:
            lines.append(f"{key}: {before!r} -> {after!r}")
    return lines


def register(path: Path, wanted: dict[str, Any]) -> dict[str, Any]:
    """The folder's registered plan: `wanted` written when the folder has none, the saved one when `wanted` is the
    same plan; a ConfigError listing the differences when it is not."""
    saved = read_plan(path)
    if saved is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(wanted, indent=1), encoding="utf-8")
        return wanted
    if saved.get("id") == wanted["id"]:
        return saved
    lines = differences(saved, wanted)
    if lines:
        raise ConfigError(f"{path}: this folder holds another experiment (plan {saved.get('id')}); the plan asked "
                          f"for now differs in:\n  " + "\n  ".join(lines) + "\nuse another --out (a new plan) or the "
                          "plan as registered")
    return saved


def verify_folder(out_dir: Path) -> tuple[list[str], list[str]]:
    """The problems found (empty: all is well) and a line for each ledger that was checked; each ledger is read
    once."""
    ledger = out_dir / LEDGER_FILE
    if not ledger.is_file():
        return [f"{ledger}: no test-view ledger (nothing was scored on test under a registered plan here)"], []
    plan = read_plan(out_dir / PLAN_FILE)
    registered = is_registered(plan)
    store = user_store(plan["test"]["split_hash"]) if registered and plan["test"].get("split_hash") else None
    rows = {path: read_rows(path) for path in (ledger, store) if path is not None and path.is_file()}
    problems, checked = [], []
    for path, held in rows.items():
        bad = first_bad_row(held)
        if bad is None:
            checked.append(f"{path}: {len(held)} row(s), chain intact")
        else:
            problems.append(f"{path}: row {bad[0]} is bad: {bad[1]}")
    if registered:
        missing = missing_scorings(rows[ledger], rows.get(store, []), plan["id"])
        if missing:
            problems.append(f"{ledger}: {len(missing)} scoring(s) of plan {plan['id']} recorded in {store} are not "
                            f"in this ledger (rows removed from its end?): {', '.join(missing[:5])}")
        early = [n for n, row in enumerate(rows[ledger], 1)
                 if row.get("plan") == plan["id"] and str(row.get("time", "")) < plan["registered"]]
        if early:
            problems.append(f"{ledger}: row {early[0]} scored test tasks under plan {plan['id']} before the plan was "
                            f"registered ({plan['registered']})")
    return problems, checked
