"""The loop's side of the gate: one call into the gate's pure decision, and what of it the engine may see."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance import strategy_from_config
from agent_evolve.engine.gate import GateDecision, decide

SEALED_FIELDS = ("per_task", "excluded")
"""Decision fields that name holdout tasks: kept in the sealed gate record, never in what an engine reads."""


def decide_gate(
    config: EvolveConfig,
    candidate: Mapping[str, Sequence[float]],
    incumbent: Mapping[str, Sequence[float]],
    best_so_far: float | None = None,
) -> GateDecision:
    """Compare candidate and incumbent task by task (task id -> repeat scores) under the configured strategy."""
    return decide(candidate, incumbent, strategy_from_config(config), best_so_far=best_so_far)


def decision_summary(decision: GateDecision) -> dict[str, Any]:
    """The aggregate decision (action, scores, statistic, reason), with no holdout task id in it."""
    fields = {k: v for k, v in decision.to_dict().items() if k not in SEALED_FIELDS}
    return {**fields, "accepted": decision.accepted}
