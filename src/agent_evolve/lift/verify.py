"""`agent-evolve experiment verify OUT`: the folder's test-view ledger (and its test split's per-user store) are
unbroken hash chains, and the folder's plan was registered before any of its test scorings."""

from __future__ import annotations

from pathlib import Path

from agent_evolve.engine.records import read_json
from agent_evolve.lift.ledger import LEDGER_FILE, first_bad_row, read_rows, user_store
from agent_evolve.lift.registration import PLAN_FILE, is_registered


def verify_ledger(path: Path) -> str | None:
    """Why the ledger at `path` is broken, naming its first bad row; None when its chain holds."""
    bad = first_bad_row(read_rows(path))
    return None if bad is None else f"{path}: row {bad[0]} is bad: {bad[1]}"


def verify_folder(out_dir: Path) -> tuple[list[str], list[str]]:
    """The problems found (empty: all is well) and a line for each ledger that was checked."""
    ledger = out_dir / LEDGER_FILE
    if not ledger.is_file():
        return [f"{ledger}: no test-view ledger (nothing was scored on test under a registered plan here)"], []
    plan = read_json(out_dir / PLAN_FILE, None)
    paths = [ledger]
    if is_registered(plan) and plan["test"].get("split_hash"):
        store = user_store(plan["test"]["split_hash"])
        paths += [store] if store.is_file() else []
    problems = [problem for path in paths if (problem := verify_ledger(path)) is not None]
    checked = [f"{path}: {len(read_rows(path))} row(s), chain intact" for path in paths
               if verify_ledger(path) is None]
    if is_registered(plan):
        early = [n for n, row in enumerate(read_rows(ledger), 1)
                 if row.get("plan") == plan["id"] and str(row.get("time", "")) < plan["registered"]]
        if early:
            problems.append(f"{ledger}: row {early[0]} scored test tasks under plan {plan['id']} before the plan was "
                            f"registered ({plan['registered']})")
    return problems, checked
