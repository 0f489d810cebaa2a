"""The gate: a pure decision whether a candidate workspace replaces the accepted one, with the numbers behind it.

`decide` compares candidate and incumbent task by task on the same holdout tasks under an acceptance strategy
(`agent_evolve.engine.acceptance`); `gate` is the score-only rule of earlier versions; `no_holdout_decision`
is the decision of a run without a holdout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from agent_evolve.engine.acceptance import AcceptanceStrategy, MinImprovement, StrictImprovement, margin_verdict
from agent_evolve.stats import PairedTable, mean

NO_HOLDOUT = "no_holdout"


@dataclass(frozen=True)
class GateDecision:
    """The decision and the numbers behind it.

    `per_task` rows are `{"task_id", "candidate", "incumbent", "repeats", "incumbent_repeats"}` (scores averaged
    over the repeats); `statistic` is `{"name", "value", "p_value", "wins", "losses", "ties", "n"}`;
    `excluded` lists the tasks one side has no score for (infrastructure failures), left out of the comparison.
    `curtailment` (empty when off) says how many tasks each side scored and skipped, and why scoring stopped.
    `cost` has each side's model calls and tokens per holdout solve and the candidate's extra (empty: unknown).
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


def decide(
    candidate: Mapping[str, Sequence[float]],
    incumbent: Mapping[str, Sequence[float]],
    strategy: AcceptanceStrategy,
    *,
    best_so_far: float | None = None,
) -> GateDecision:
    """Compare the k scores per task of both sides on the tasks both scored, under `strategy`.

    Each task's repeats are averaged. A task missing from either side, or with no score, is `excluded`
    (it failed for infrastructure reasons) rather than counted as a loss; with no shared task, the candidate
    is rejected. A non-finite score raises ValueError naming the task.
    """
    table = PairedTable.pair(_averaged(incumbent), _averaged(candidate))
    compared = {row.task_id for row in table.rows}
    excluded = tuple(sorted((set(candidate) | set(incumbent)) - compared))
    if not table.rows:
        return GateDecision("reject", 0.0, 0.0, 0.0, 0.0, "no holdout task was scored for both candidate and "
                            "incumbent", strategy=strategy.name, statistic=_statistic(table, "none", 0.0, None),
                            excluded=excluded)
    verdict = strategy.decide(table, best_so_far=best_so_far)
    per_task = tuple(
        {"task_id": row.task_id, "candidate": row.candidate, "incumbent": row.baseline,
         "repeats": len(candidate[row.task_id]), "incumbent_repeats": len(incumbent[row.task_id])}
        for row in table.rows
    )
    return GateDecision(
        "accept" if verdict.accepted else "reject",
        table.candidate_mean,
        table.baseline_mean,
        table.mean_difference,
        verdict.margin,
        verdict.reason,
        strategy=strategy.name,
        per_task=per_task,
        statistic=_statistic(table, verdict.statistic, verdict.value, verdict.p_value),
        excluded=excluded,
    )


def gate(
    candidate_score: float,
    incumbent_score: float,
    *,
    min_improvement: float = 0.0,
    accept_ties: bool = False,
) -> GateDecision:
    """Accept when the candidate beats the incumbent by more than `min_improvement` on the same holdout tasks.

    A candidate exactly `min_improvement` ahead is a tie: kept only when `accept_ties` is set.
    """
    delta = candidate_score - incumbent_score
    accepted, reason = margin_verdict(delta, min_improvement, accept_ties)
    strategy = MinImprovement.name if min_improvement > 0 else StrictImprovement.name
    return GateDecision("accept" if accepted else "reject", candidate_score, incumbent_score, delta,
                        min_improvement, reason, strategy=strategy)


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
