"""Copy a finished (or interrupted) Ratchet run's evidence into this folder and check its lifecycle.

    PYTHONPATH=src python experiments/ratchet-lifecycle/collect.py WORKSPACE [OUT]

Writes into OUT (default: this folder): `ledger.sqlite` (a consistent copy of the run's append-only ledger),
`rounds.json` (per round: held-out pass@1, the active bank, what happened), `audit.txt` (the whole audit trail,
oldest first), `lifecycle.json` (how often each lifecycle event happened) and `bank.png` (plot_bank.py).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from plot_bank import plot_bank

from agent_evolve.algorithms.ratchet.bank import round_scores
from agent_evolve.algorithms.ratchet.ledger import Ledger, ledger_path

EVENTS = {"synthesis": "synth", "retirement": "retire", "cap eviction": "evict", "rollback": "rollback"}


def lifecycle(ledger: Ledger) -> dict[str, list[int]]:
    """The rounds in which each lifecycle event happened (meta-skill refresh: a meta-skill written after round 0)."""
    found = {event: [d.round for d in ledger.decisions(kind=kind)] for event, kind in EVENTS.items()}
    found["meta-skill refresh"] = [m.created_round for m in ledger.meta_skills() if m.created_round > 0]
    return found


def rounds(ledger: Ledger, scores: dict[int, float]) -> list[dict[str, object]]:
    """One row per round: held-out pass@1, the active bank after it, and its decisions by kind."""
    last = max([ledger.last_round(), *scores]) if scores else ledger.last_round()
    rows = []
    for r in range(last + 1):
        kinds: dict[str, list[str]] = {}
        for d in ledger.decisions(round=r):
            if d.kind in (*EVENTS.values(), "cover_guard", "dedup"):
                kinds.setdefault(d.kind, []).append(d.subject)
        rows.append({"round": r, "heldout": scores.get(r), "bank": ledger.bank_at(r), "decisions": kinds})
    return rows


def collect(workspace: Path, out: Path) -> dict[str, list[int]]:
    out.mkdir(parents=True, exist_ok=True)
    copy = out / "ledger.sqlite"
    copy.unlink(missing_ok=True)
    with sqlite3.connect(ledger_path(workspace)) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    scores = round_scores(workspace)
    with Ledger.open(copy) as ledger:
        events = lifecycle(ledger)
        table = rounds(ledger, scores)
        trail = reversed(ledger.audit_trail())
        (out / "audit.txt").write_text("".join(
            f"round {e['round']}: {e['event']} {json.dumps(e['payload'], sort_keys=True, default=str)[:400]}\n"
            for e in trail))
    (out / "rounds.json").write_text(json.dumps(table, indent=1) + "\n")
    (out / "lifecycle.json").write_text(json.dumps(events, indent=1) + "\n")
    plot_bank(copy, out / "rounds.json", out / "bank.png")
    return events


def main() -> None:
    workspace = Path(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).parent
    events = collect(workspace, out)
    missing = [event for event, happened in events.items() if not happened]
    print(json.dumps(events))
    print("every lifecycle event happened" if not missing else f"never happened: {', '.join(missing)}")


if __name__ == "__main__":
    main()
