"""Acceptance strategies of the gate: one small protocol, one short module per rule, chosen by config."""

from __future__ import annotations

from collections.abc import Callable

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.acceptance.base import AcceptanceStrategy, Verdict
from agent_evolve.engine.acceptance.best_so_far import BestSoFar
from agent_evolve.engine.acceptance.keep import KeepEvery
from agent_evolve.engine.acceptance.min_improvement import MinImprovement, StrictImprovement, margin_verdict
from agent_evolve.engine.acceptance.paired import PairedSignTest
from agent_evolve.errors import ConfigError

__all__ = ["STRATEGY_NAMES", "AcceptanceStrategy", "BestSoFar", "KeepEvery", "MinImprovement", "PairedSignTest",
           "StrictImprovement", "Verdict", "margin_verdict", "strategy_from_config"]

STRATEGY_NAMES: tuple[str, ...] = (StrictImprovement.name, MinImprovement.name, PairedSignTest.name, BestSoFar.name,
                                   KeepEvery.name)


def strategy_from_config(config: EvolveConfig) -> AcceptanceStrategy:
    """The strategy of `gate_strategy`, with `gate_min_improvement`, `gate_accept_ties` and `gate_alpha` (`strict`
    with a positive margin is min_improvement; `paired` uses only `gate_alpha`)."""
    name, margin, ties = config.gate_strategy, config.gate_min_improvement, config.gate_accept_ties
    build: dict[str, Callable[[], AcceptanceStrategy]] = {
        StrictImprovement.name: lambda: MinImprovement(margin, ties) if margin > 0 else StrictImprovement(ties),
        MinImprovement.name: lambda: MinImprovement(margin, ties),
        PairedSignTest.name: lambda: PairedSignTest(config.gate_alpha),
        BestSoFar.name: lambda: BestSoFar(margin, ties), KeepEvery.name: KeepEvery}
    if name not in build:
        raise ConfigError(f"key 'gate_strategy' must be one of {', '.join(STRATEGY_NAMES)}, got {name!r}")
    return build[name]()
