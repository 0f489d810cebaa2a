"""Paired test: accept only when the candidate wins more tasks than it loses and chance is unlikely."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.engine.acceptance.base import Verdict
from agent_evolve.stats import PairedTable, sign_test_p


@dataclass(frozen=True)
class PairedSignTest:
    """Exact sign test (McNemar on 0/1 scores) on per-task wins and losses; accept when p < `alpha` (on 8 tasks,
    7 wins and no loss give p = 0.0156)."""

    alpha: float = 0.05
    name = "paired"
    monotone = True

    def decide(self, table: PairedTable, *, best_so_far: float | None = None) -> Verdict:
        wins, losses = table.wins, table.losses
        p = sign_test_p(wins, losses)
        counts = f"{wins} wins, {losses} losses, {table.ties} ties"
        if wins <= losses:
            accepted, reason = False, f"{counts}: no more wins than losses"
        elif p >= self.alpha:
            accepted, reason = False, f"{counts}: p = {p:.4g} >= {self.alpha:g}, could be chance"
        else:
            accepted, reason = True, f"{counts}: p = {p:.4g} < {self.alpha:g}"
        return Verdict(accepted, reason, "sign_test_wins", float(wins), p_value=p)
