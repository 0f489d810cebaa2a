"""A gate's curtailment while it runs: the stop rules of its two phases and the record of what was scored and why.

Scoring stops only on a settled rejection (`curtailment.settle`): an accepted candidate is scored to the end,
because its per-task table becomes the next gate's incumbent and its mean the run's accepted score. The
incumbent phase (when re-measured) stops once even a candidate that won every task would be rejected; the
candidate phase then is not run at all. With `sprt_beta` the candidate phase also stops, rejecting, once
Wald's futility test says so (`curtailment.futile`: not exact, its error rate is stated there).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_evolve.engine.acceptance import AcceptanceStrategy
from agent_evolve.engine.curtailment import SPRT_WIN_SHARE, ScoreRange, Settlement, StopRule, futile, settle
from agent_evolve.engine.gate import GateDecision, decide
from agent_evolve.engine.holdout import HoldoutMeasure

log = logging.getLogger(__name__)

ALL_SCORED = "every task was scored (only a rejection settled before the last task stops a gate)"


@dataclass
class GateCurtailer:
    """Curtailment of one gate over `task_ids` (in scoring order), `repeats` solves each."""

    strategy: AcceptanceStrategy
    score_range: ScoreRange
    best_so_far: float | None
    task_ids: list[str]
    repeats: int
    seed: int
    sprt_beta: float | None = None
    settlement: Settlement | None = None
    out_of_range: str = ""
    futility: str = ""

    def incumbent_rule(self) -> StopRule:
        """Stop re-measuring the incumbent once even the best candidate imaginable would be rejected."""
        return lambda scored, unscored: self._stop(scored, lambda: settle(
            self.strategy, {}, scored, unscored_candidate=self.task_ids, unscored_incumbent=unscored,
            score_range=self.score_range, best_so_far=self.best_so_far))

    def candidate_rule(self, incumbent: Mapping[str, Sequence[float]]) -> StopRule:
        """Stop scoring the candidate once its rejection is settled, given the incumbent's whole table (or, with
        `sprt_beta`, once it is futile)."""
        def rule(scored: dict[str, list[float]], unscored: list[str]) -> bool:
            return self._stop(scored, lambda: settle(
                self.strategy, scored, incumbent, unscored_candidate=unscored, score_range=self.score_range,
                best_so_far=self.best_so_far)) or self._futile(scored, incumbent)

        return rule

    def rejected(self) -> bool:
        """The last check settled a rejection or found it futile (and no score has left the declared range)."""
        settled = self.settlement is not None and self.settlement.action == "reject"
        return not self.out_of_range and (settled or bool(self.futility))

    def _futile(self, scored: Mapping[str, Sequence[float]], incumbent: Mapping[str, Sequence[float]]) -> bool:
        if self.sprt_beta is None or self.out_of_range or not scored:
            return False
        statistic = decide(scored, incumbent, self.strategy, best_so_far=self.best_so_far).statistic
        wins, losses = statistic["wins"], statistic["losses"]
        if futile(wins, losses, self.sprt_beta):
            self.futility = (f"futile by SPRT after {wins} wins and {losses} losses: a candidate winning "
                             f"{SPRT_WIN_SHARE:.0%} of differing tasks stops here with probability at most "
                             f"{self.sprt_beta:g}")
        return bool(self.futility)

    def _stop(self, scored: Mapping[str, Sequence[float]], check: Callable[[], Settlement]) -> bool:
        """Stop on a settled rejection; never once a score has left the declared range."""
        if self.out_of_range:
            return False
        for task_id, values in scored.items():
            if not all(self.score_range.contains(v) for v in values):
                self.out_of_range = (f"task {task_id} scored {list(values)}, outside the benchmark's score_range "
                                     f"[{self.score_range.low}, {self.score_range.high}]: every task is scored")
                log.warning("gate curtailment is off for this gate: %s", self.out_of_range)
                return False
        self.settlement = check()
        return self.rejected()

    def record(self, phases: Mapping[str, HoldoutMeasure | None]) -> dict[str, Any]:
        """What each phase scored and skipped (tasks and solves), and why scoring stopped."""
        total = len(self.task_ids)
        counts: dict[str, Any] = {"tasks": total, "repeats": self.repeats, "order_seed": self.seed}
        solves = skipped = 0
        for name, measured in phases.items():
            scored_tasks = total - len(measured.unscored) if measured is not None else 0
            attempts = measured.attempts if measured is not None else 0
            counts[name] = {"scored": scored_tasks, "skipped": total - scored_tasks, "solves": attempts}
            solves += attempts
            skipped += total * self.repeats - attempts
        if not (self.rejected() and skipped > 0):
            how, reason = "all scored", self.out_of_range or ALL_SCORED
        elif self.futility:
            how, reason = "sprt", self.futility
        else:
            how, reason = "settled", self.settlement.reason if self.settlement else ALL_SCORED
        return {**counts, "solves": solves, "solves_skipped": skipped, "stopped": how, "reason": reason}

    def decided(self, decision: GateDecision, record: dict[str, Any]) -> GateDecision:
        """The decision on the tasks scored, with the curtailment record; when scoring stopped, a rejection with
        the reason it stopped (settled: the strategy's own verdict; sprt: futile at the stated error rate)."""
        if record["stopped"] == "all scored":
            return replace(decision, curtailment=record)
        if record["stopped"] == "settled" and decision.accepted:
            raise AssertionError(f"a curtailed gate accepted: {decision.reason}")
        return replace(decision, action="reject", reason=record["reason"], curtailment=record)
