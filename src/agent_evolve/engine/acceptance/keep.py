"""Keep: every scored candidate is kept; for engines that govern their own changes (Ratchet's curator and rollback)."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.engine.acceptance.base import Verdict
from agent_evolve.stats import PairedTable


@dataclass(frozen=True)
class KeepEvery:
    """Accept every candidate the holdout scored; the difference is still measured and reported."""

    name = "keep"
    monotone = True

    def decide(self, table: PairedTable, *, best_so_far: float | None = None) -> Verdict:
        delta = table.candidate_mean - table.baseline_mean
        return Verdict(True, f"kept (gate_strategy keep: the engine governs its changes); delta {delta:+.4f}",
                       "difference", delta)
