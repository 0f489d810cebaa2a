"""Ratchet's per-round plot (matplotlib, lazily): held-out pass@1 (from the run records), router engagement, the
active bank size and the rollbacks (from the ledger)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.algorithms.ratchet.ledger import Ledger
from agent_evolve.engine.records import RunRecords
from agent_evolve.errors import MissingDependencyError, optional_module

PLOT_FILE = "ratchet_rounds.png"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RoundPoint:
    """One round of the plot."""

    round: int
    holdout: float | None
    engagement: float | None
    bank_size: int


def plot_path(workspace_path: str | Path) -> Path:
    """Where a run's plot goes: with its score-bearing records."""
    return RunRecords(Path(workspace_path)).scored / PLOT_FILE


def round_points(ledger: Ledger, holdout: Mapping[int, float]) -> list[RoundPoint]:
    """Every round that has a held-out score or recorded attempts, in order."""
    routing = ledger.routing_by_round()
    return [RoundPoint(r, holdout.get(r), routed / attempts if attempts else None, len(ledger.bank_at(r)))
            for r in sorted(set(holdout) | set(routing)) for attempts, routed in [routing.get(r, (0, 0))]]


def plot_run(ledger: Ledger, holdout: Mapping[int, float], path: Path) -> Path | None:
    """Write the plot of a run, from its ledger and its held-out score per round, as the PNG at `path`; None (and a
    warning) when matplotlib, the `[plot]` extra, is not installed."""
    try:
        figures = optional_module("matplotlib.figure", "plot", "the Ratchet plot")
        ticker = optional_module("matplotlib.ticker", "plot", "the Ratchet plot")
    except MissingDependencyError as exc:
        log.warning("%s not written: %s", path, exc)
        return None
    points = round_points(ledger, holdout)
    rollbacks = sorted({d.round for d in ledger.decisions(kind="rollback")})
    figure = figures.Figure(figsize=(8, 4), dpi=110)
    rates = figure.add_subplot()
    rounds = [p.round for p in points]
    scored = [(p.round, p.holdout) for p in points if p.holdout is not None]
    engaged = [(p.round, p.engagement) for p in points if p.engagement is not None]
    rates.plot([r for r, _ in scored], [s for _, s in scored], "-o", color="#1d3557", markersize=3,
               label="held-out pass@1")
    rates.plot([r for r, _ in engaged], [e for _, e in engaged], "--", color="#e76f51", label="router engagement")
    rates.set_ylim(-0.02, 1.02)
    rates.set_xlabel("round")
    rates.set_ylabel("rate")
    rates.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    bank = rates.twinx()
    bank.step(rounds, [p.bank_size for p in points], where="post", color="#2a9d4b", alpha=0.7,
              label="active bank size")
    bank.set_ylabel("active skills")
    bank.yaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    for index, r in enumerate(rollbacks):
        rates.axvline(r, color="#d62828", linewidth=0.8, linestyle=":", label="rollback" if index == 0 else None)
    handles, labels = rates.get_legend_handles_labels()
    more, more_labels = bank.get_legend_handles_labels()
    rates.legend(handles + more, labels + more_labels, fontsize=7, loc="upper left")
    rates.set_title("Ratchet")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    return path
