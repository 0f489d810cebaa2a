"""A gate's curtailment while it runs: the stop rules of its two phases and the record of what was scored and why.

Scoring stops only on a settled rejection (`curtailment.settle`): an accepted candidate is scored to the end,
because its per-task table becomes the next gate's incumbent and its mean the run's accepted score. The
incumbent phase (when re-measured) stops once even a candidate that won every task would be rejected; the
candidate phase then is not run at all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_evolve.engine.acceptance import AcceptanceStrategy
from agent_evolve.engine.curtailment import ScoreRange, Settlement, StopRule, settle
from agent_evolve.engine.gate import GateDecision
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
    settlement: Settlement | None = None
    out_of_range: str = ""

    def incumbent_rule(self) -> StopRule:
        """Stop re-measuring the incumbent once even the best candidate imaginable would be rejected."""
        return lambda scored, unscored: self._stop(scored, lambda: settle(
            self.strategy, {}, scored, unscored_candidate=self.task_ids, unscored_incumbent=unscored,
            score_range=self.score_range, best_so_far=self.best_so_far))

    def candidate_rule(self, incumbent: Mapping[str, Sequence[float]]) -> StopRule:
        """Stop scoring the candidate once its rejection is settled, given the incumbent's whole table."""
        return lambda scored, unscored: self._stop(scored, lambda: settle(
            self.strategy, scored, incumbent, unscored_candidate=unscored, score_range=self.score_range,
            best_so_far=self.best_so_far))

    def rejected(self) -> bool:
        """The last check settled a rejection (and no score has left the declared range)."""
        return not self.out_of_range and self.settlement is not None and self.settlement.action == "reject"

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
        stopped = self.rejected() and skipped > 0
        reason = self.out_of_range or (self.settlement.reason if stopped and self.settlement else ALL_SCORED)
        return {**counts, "solves": solves, "solves_skipped": skipped, "stopped": "settled" if stopped else "all scored",
                "reason": reason}

    def decided(self, decision: GateDecision, record: dict[str, Any]) -> GateDecision:
        """The decision on the tasks scored, with the curtailment record (and the settled reason when it stopped)."""
        if record["stopped"] != "settled":
            return replace(decision, curtailment=record)
        if decision.accepted:
            raise AssertionError(f"a curtailed gate accepted: {decision.reason}")
        return replace(decision, reason=record["reason"], curtailment=record)
