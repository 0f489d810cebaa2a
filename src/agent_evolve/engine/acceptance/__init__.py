"""Acceptance strategies of the gate: one small protocol, one short module per rule, chosen by config."""

from __future__ import annotations

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance.base import AcceptanceStrategy, Verdict
from agent_evolve.engine.acceptance.best_so_far import BestSoFar
from agent_evolve.engine.acceptance.keep import KeepEvery
from agent_evolve.engine.acceptance.min_improvement import MinImprovement, StrictImprovement, margin_verdict
from agent_evolve.engine.acceptance.paired import PairedSignTest
from agent_evolve.errors import ConfigError

__all__ = [
    "STRATEGY_NAMES",
    "AcceptanceStrategy",
    "BestSoFar",
    "KeepEvery",
    "MinImprovement",
    "PairedSignTest",
    "StrictImprovement",
    "Verdict",
    "margin_verdict",
    "strategy_from_config",
]

STRATEGY_NAMES: tuple[str, ...] = (StrictImprovement.name, MinImprovement.name, PairedSignTest.name, BestSoFar.name,
                                   KeepEvery.name)


def strategy_from_config(config: EvolveConfig) -> AcceptanceStrategy:
    """The strategy of `gate_strategy`, with `gate_min_improvement`, `gate_accept_ties` and `gate_alpha`.

    `strict` with a positive margin is min_improvement (the gate has always honoured that margin); `paired` uses
    `gate_alpha` and ignores the margin and the tie policy.
    """
    name, margin, ties = config.gate_strategy, config.gate_min_improvement, config.gate_accept_ties
    if name == StrictImprovement.name:
        return MinImprovement(margin, ties) if margin > 0 else StrictImprovement(ties)
    if name == MinImprovement.name:
        return MinImprovement(margin, ties)
    if name == PairedSignTest.name:
        return PairedSignTest(config.gate_alpha)
    if name == BestSoFar.name:
        return BestSoFar(margin, ties)
    if name == KeepEvery.name:
        return KeepEvery()
    raise ConfigError(f"key 'gate_strategy' must be one of {', '.join(STRATEGY_NAMES)}, got {name!r}")
