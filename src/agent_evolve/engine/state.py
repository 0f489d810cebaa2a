"""RunState: what the loop knows about a run between cycles, rebuilt from the journal on resume."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from agent_evolve.engine.journal import ACCEPTED_PHASES, Journal, Phase
from agent_evolve.engine.tasks import TaskPlan
from agent_evolve.engine.versioning import BASELINE_TAG


@dataclass
class RunState:
    """The plan, the batch cursor, the accepted version and its score, the baseline, and the usage so far.

    With a holdout, `accepted_score` is the accepted version's holdout score. Without one it is the mean score
    of the accepted version over the train attempts it made (`accepted_count` of them).
    """

    plan: TaskPlan
    cursor: int = 0
    accepted_tag: str = BASELINE_TAG
    accepted_cycle: int = 0
    accepted_score: float = 0.0
    accepted_count: int = 0
    baseline_score: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)

    @property
    def has_holdout(self) -> bool:
        return bool(self.plan.holdout_ids)

    def accepted_fields(self) -> dict[str, Any]:
        """What a journal entry records about the accepted version and the spent usage."""
        return {"accepted_tag": self.accepted_tag, "accepted_cycle": self.accepted_cycle,
                "accepted_score": self.accepted_score, "accepted_count": self.accepted_count,
                "baseline_score": self.baseline_score, "usage": copy.deepcopy(self.usage)}

    def add_train_scores(self, total: float, count: int) -> None:
        """Without a holdout, fold the accepted version's new train attempts into its running mean."""
        if self.has_holdout or count == 0:
            return
        self.accepted_score = (self.accepted_score * self.accepted_count + total) / (self.accepted_count + count)
        self.accepted_count += count

    def accept(self, tag: str, cycle: int, score: float, count: int) -> None:
        self.accepted_tag, self.accepted_cycle, self.accepted_score, self.accepted_count = tag, cycle, score, count

    @classmethod
    def from_journal(cls, plan: TaskPlan, journal: Journal) -> RunState:
        """The state after the last journaled cycle (the baseline entry when no cycle finished)."""
        baseline = journal.phases(0)[Phase.BASELINE]
        last = journal.last_entry(*ACCEPTED_PHASES) or baseline
        solved = journal.last_entry(Phase.SOLVED)
        return cls(
            plan=plan,
            cursor=int(solved["cursor"]) if solved else 0,
            accepted_tag=last.get("accepted_tag", BASELINE_TAG),
            accepted_cycle=int(last.get("accepted_cycle", 0)),
            accepted_score=float(last.get("accepted_score", 0.0)),
            accepted_count=int(last.get("accepted_count", 0)),
            baseline_score=float(baseline.get("baseline_score", baseline.get("accepted_score", 0.0))),
            usage=dict(last.get("usage", {})),
        )
