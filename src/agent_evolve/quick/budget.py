"""Budget presets of the short Python API (light, medium, heavy: cycles, train tasks, holdout cap; 30% of the tasks
are the holdout), and how many solves a run will make before it starts."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.tasks import plan_tasks

HOLDOUT_RATIO = 0.3


@dataclass(frozen=True)
class Budget:
    """Cycles, train tasks solved per cycle, and the cap on the holdout each candidate is gated on."""

    cycles: int
    batch_size: int
    holdout_limit: int

    def apply(self, config: EvolveConfig) -> EvolveConfig:
        """`config` with this budget's cycles, batch size and holdout."""
        return dataclasses.replace(config, max_cycles=self.cycles, batch_size=self.batch_size,
                                   holdout_limit=self.holdout_limit, holdout_ratio=HOLDOUT_RATIO)


BUDGETS: dict[str, Budget] = {
    "light": Budget(cycles=3, batch_size=8, holdout_limit=16),
    "medium": Budget(cycles=6, batch_size=10, holdout_limit=32),
    "heavy": Budget(cycles=12, batch_size=16, holdout_limit=50),
}


@dataclass(frozen=True)
class Estimate:
    """The most solves a run makes: the starting agent on the holdout, then per cycle a batch and a gate (without a
    holdout, no gate: a kept candidate re-solves its batch instead)."""

    baseline: int
    batch: int
    gate: int
    cycles: int

    @property
    def per_cycle(self) -> int:
        return self.batch + (self.gate if self.baseline else self.batch)

    @property
    def total(self) -> int:
        return self.baseline + self.cycles * self.per_cycle


def estimate_solves(config: EvolveConfig, train_pool: int) -> Estimate:
    """The solves `config` asks for on a train pool of `train_pool` tasks (the engine's own trials not counted)."""
    plan = plan_tasks([str(i) for i in range(train_pool)], config.holdout_ratio, config.seed, config.holdout_limit,
                      config.val_ratio, config.val_limit)
    holdout = len(plan.holdout_ids) * config.gate_repeats
    gate = holdout * (2 if config.gate_remeasure_incumbent else 1)
    return Estimate(holdout, min(config.batch_size, len(plan.train_ids)), gate, config.max_cycles)


def duration(seconds: float) -> str:
    """`seconds` as a person reads a wait: 40 s, 12 min, 3.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate_line(estimate: Estimate, seconds_per_solve: float | None, concurrency: int) -> str:
    """The line printed before a run: its solves and, from a measured speed, its time."""
    judged = f"a gate of {estimate.gate}" if estimate.baseline else "no gate (each kept edit re-solves its batch)"
    solves = (f"up to {estimate.total} solves: {estimate.baseline} to score the starting agent, then {estimate.cycles} "
              f"cycles of {estimate.batch} train tasks and {judged}")
    if seconds_per_solve is None:
        return f"{solves}; time unknown until the first cycle"
    return f"{solves}; about {duration(seconds_per_solve * estimate.total / max(1, concurrency))} at the measured speed"
