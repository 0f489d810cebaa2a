"""The loop's side of the gate: one call into the gate's pure decision, and what of it the engine may see."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.gate import GateDecision, gate


def decide_gate(
    config: EvolveConfig,
    candidate: Mapping[str, Sequence[float]],
    incumbent: Mapping[str, Sequence[float]],
    best_so_far: float | None = None,
) -> GateDecision:
    """Compare candidate and incumbent on the holdout tasks both have scores for (task id -> repeat scores)."""
    common = [task_id for task_id in candidate if task_id in incumbent and candidate[task_id] and incumbent[task_id]]
    return gate(
        _mean_of_means(candidate, common),
        _mean_of_means(incumbent, common),
        min_improvement=config.gate_min_improvement,
        accept_ties=config.gate_accept_ties,
    )


def holdout_free_decision() -> GateDecision:
    """Without holdout tasks every valid mutation is kept."""
    return GateDecision("accept", 0.0, 0.0, 0.0, 0.0, "no holdout tasks: every valid mutation is kept")


def decision_summary(decision: GateDecision) -> dict[str, Any]:
    """The aggregate decision (action, scores, reason): scalars only, never a per-task holdout table."""
    fields = {k: v for k, v in decision.to_dict().items() if isinstance(v, (str, int, float, bool)) or v is None}
    return {**fields, "accepted": decision.accepted}


def _mean_of_means(table: Mapping[str, Sequence[float]], task_ids: list[str]) -> float:
    means = [sum(table[t]) / len(table[t]) for t in task_ids]
    return sum(means) / len(means) if means else 0.0
