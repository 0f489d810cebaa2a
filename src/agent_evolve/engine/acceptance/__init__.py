"""Acceptance strategies of the gate: one small protocol, one short module per rule, chosen by config."""

from __future__ import annotations

from agent_evolve.engine.acceptance.base import AcceptanceStrategy, Verdict
from agent_evolve.engine.acceptance.best_so_far import BestSoFar
from agent_evolve.engine.acceptance.factory import STRATEGY_NAMES, strategy_from_config
from agent_evolve.engine.acceptance.min_improvement import MinImprovement, margin_verdict
from agent_evolve.engine.acceptance.paired import PairedSignTest
from agent_evolve.engine.acceptance.strict import StrictImprovement

__all__ = [
    "STRATEGY_NAMES",
    "AcceptanceStrategy",
    "BestSoFar",
    "MinImprovement",
    "PairedSignTest",
    "StrictImprovement",
    "Verdict",
    "margin_verdict",
    "strategy_from_config",
]
