"""Plot the skill bank over rounds from a Ratchet ledger: one bar per skill while it was active, marked where it
was born, retired, evicted or restored, with the held-out pass@1 and rollbacks above.

    PYTHONPATH=src python experiments/ratchet-lifecycle/plot_bank.py LEDGER ROUNDS_JSON OUT_PNG
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent_evolve.algorithms.ratchet.ledger import Ledger

MARKS = {"synth": ("^", "tab:green", "born"), "retire": ("x", "tab:red", "retired"),
         "evict": ("v", "tab:orange", "evicted"), "rollback": ("o", "tab:purple", "rollback")}


def plot_bank(ledger_file: Path, rounds_file: Path, out: Path) -> Path:
    """Write the bank-over-rounds PNG at `out`."""
    from matplotlib.figure import Figure

    rows = json.loads(rounds_file.read_text())
    with Ledger.open(ledger_file) as ledger:
        names = [s.name for s in ledger.skills()]
        decisions = [d for d in ledger.decisions() if d.kind in MARKS]
        metas = [m.created_round for m in ledger.meta_skills() if m.created_round > 0]
    figure = Figure(figsize=(9, 2.5 + 0.3 * len(names)), dpi=110)
    top, bank = figure.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1, max(1.5, 0.35 * len(names))]})
    scored = [(r["round"], r["heldout"]) for r in rows if r["heldout"] is not None]
    top.plot([r for r, _ in scored], [s for _, s in scored], marker=".", color="tab:blue", label="held-out pass@1")
    top.plot([r["round"] for r in rows], [len(r["bank"]) for r in rows], drawstyle="steps-post", color="grey",
             label="active skills")
    for r in metas:
        top.axvline(r, color="tab:brown", linestyle=":", linewidth=1)
    top.legend(loc="upper left", fontsize=7)
    top.set_title("Ratchet: the skill bank over rounds (dotted: meta-skill refresh)", fontsize=9)
    for y, name in enumerate(names):
        active = [r["round"] for r in rows if name in r["bank"]]
        bank.scatter(active, [y] * len(active), marker="s", s=30, color="lightsteelblue")
    seen: set[str] = set()
    for d in decisions:
        marker, color, label = MARKS[d.kind]
        y = names.index(d.subject) if d.subject in names else -1  # a rollback concerns the whole bank
        bank.scatter([d.round], [y], marker=marker, color=color, s=60, label=None if label in seen else label)
        seen.add(label)
    bank.set_yticks(range(-1, len(names)), ["(bank)", *names], fontsize=7)
    bank.set_ylim(-1.6, len(names) - 0.4)
    bank.xaxis.get_major_locator().set_params(integer=True)
    bank.set_xlabel("round")
    if seen:
        bank.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)  # outside: no mark hidden
    figure.tight_layout()
    figure.savefig(out)
    return out


if __name__ == "__main__":
    plot_bank(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
