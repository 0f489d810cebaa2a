"""The gate's decision: whether a candidate replaces the accepted version, with the numbers behind it (`decide`,
pure, and the journaled `GateOutcome`); rules in `engine.acceptance`, evaluation in `engine.gate_evaluation`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from agent_evolve.engine.acceptance import AcceptanceStrategy, StrictImprovement
from agent_evolve.stats import PairedTable, mean

NO_HOLDOUT = "no_holdout"
SEALED_FIELDS = ("per_task", "excluded")  # they name holdout tasks: only in the sealed record, never for an engine


@dataclass(frozen=True)
class GateDecision:
    """The decision and the numbers behind it.

    `per_task` rows: `{"task_id", "candidate", "incumbent", "repeats", "incumbent_repeats"}` (repeats averaged);
    `statistic`: `{"name", "value", "p_value", "wins", "losses", "ties", "n"}`; `excluded`: tasks one side has no
    score for, left out; `curtailment` (empty when off): what each side scored and skipped, and why scoring
    stopped; `cost`: each side's model calls and tokens per holdout solve and the candidate's extra.
    """

    action: Literal["accept", "reject"]
    candidate_score: float
    incumbent_score: float
    delta: float
    min_improvement: float
    reason: str
    strategy: str = StrictImprovement.name
    per_task: tuple[dict[str, Any], ...] = ()
    statistic: dict[str, Any] = field(default_factory=dict)
    excluded: tuple[str, ...] = ()
    curtailment: dict[str, Any] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples as lists, no empty `curtailment` or `cost`); `from_dict` reads it back."""
        data = asdict(self)
        data["per_task"] = list(data["per_task"])
        data["excluded"] = list(data["excluded"])
        return {key: value for key, value in data.items() if key not in ("curtailment", "cost") or value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateDecision:
        """Load a decision written by `to_dict` (or an older one without the per-task fields)."""
        fields = dict(data)
        fields["per_task"] = tuple(dict(row) for row in fields.get("per_task", ()))
        fields["excluded"] = tuple(fields.get("excluded", ()))
        return cls(**fields)

    def summary(self) -> dict[str, Any]:
        """The aggregate decision (action, scores, statistic, reason), with no holdout task id in it."""
        fields = {k: v for k, v in self.to_dict().items() if k not in SEALED_FIELDS}
        return {**fields, "accepted": self.accepted}


@dataclass(frozen=True)
class GateOutcome:
    """What one gate returns to the loop: its decision (None: nothing decided), why it failed (empty: it did not),
    and the score and train count the candidate carries when accepted; `to_dict` is the journaled shape."""

    decision: GateDecision | None = None
    failure: str = ""
    accepted_score: float | None = None
    accepted_count: int = 0

    @property
    def accepted(self) -> bool:
        return self.decision is not None and self.decision.accepted

    def summary(self) -> dict[str, Any] | None:
        """The decision as an engine and the cycle record may see it, or None."""
        return self.decision.summary() if self.decision is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.summary(), "failure": self.failure, "accepted_score": self.accepted_score,
                "accepted_count": self.accepted_count}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateOutcome:
        """Load a journaled outcome (extra keys such as the entry's `cycle` and `phase` are ignored)."""
        summary = data.get("decision")
        decision = None
        if summary is not None:
            decision = GateDecision.from_dict({k: v for k, v in summary.items() if k != "accepted"})
        return cls(decision, data.get("failure", ""), data.get("accepted_score"), int(data.get("accepted_count", 0)))


def decide(candidate: Mapping[str, Sequence[float]], incumbent: Mapping[str, Sequence[float]],
           strategy: AcceptanceStrategy, *, best_so_far: float | None = None) -> GateDecision:
    """Compare the k scores per task (averaged) on the tasks both sides scored, under `strategy`; a task one side
    lacks is `excluded`, not a loss; no shared task rejects; a non-finite score raises ValueError naming the task."""
    table = PairedTable.pair(_averaged(incumbent), _averaged(candidate))
    compared = {row.task_id for row in table.rows}
    excluded = tuple(sorted((set(candidate) | set(incumbent)) - compared))
    if not table.rows:
        return GateDecision("reject", 0.0, 0.0, 0.0, 0.0, "no holdout task was scored for both candidate and "
                            "incumbent", strategy=strategy.name, statistic=_statistic(table, "none", 0.0, None),
                            excluded=excluded)
    verdict = strategy.decide(table, best_so_far=best_so_far)
    per_task = tuple({"task_id": row.task_id, "candidate": row.candidate, "incumbent": row.baseline,
                      "repeats": len(candidate[row.task_id]), "incumbent_repeats": len(incumbent[row.task_id])}
                     for row in table.rows)
    return GateDecision("accept" if verdict.accepted else "reject", table.candidate_mean, table.baseline_mean,
                        table.mean_difference, verdict.margin, verdict.reason, strategy=strategy.name,
                        per_task=per_task, excluded=excluded,
                        statistic=_statistic(table, verdict.statistic, verdict.value, verdict.p_value))


def no_holdout_decision() -> GateDecision:
    """The decision of a run without holdout tasks: nothing to measure, so every valid mutation is kept."""
    return GateDecision("accept", 0.0, 0.0, 0.0, 0.0, "no holdout tasks: every valid mutation is kept",
                        strategy=NO_HOLDOUT)


def _averaged(scores: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """Each task's mean over its repeats; tasks without a score are left out."""
    return {task_id: mean(values) for task_id, values in scores.items() if len(values) > 0}


def _statistic(table: PairedTable, name: str, value: float, p_value: float | None) -> dict[str, Any]:
    return {"name": name, "value": value, "p_value": p_value, "wins": table.wins, "losses": table.losses,
            "ties": table.ties, "n": table.n}
