"""Budget presets of the short Python API (light, medium, heavy: cycles, train tasks, holdout cap; 30% of the tasks
are the holdout), and the line that states a run's solves and time before it starts."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.run_estimate import Estimate, duration

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


def estimate_line(estimate: Estimate, seconds_per_solve: float | None, concurrency: int) -> str:
    """The line printed before a run: its solves and, from a measured speed, its time."""
    judged = f"a gate of {estimate.gate}" if estimate.baseline else "no gate (each kept edit re-solves its batch)"
    solves = (f"up to {estimate.total} solves: {estimate.baseline} to score the starting agent, then {estimate.cycles} "
              f"cycles of {estimate.batch} train tasks and {judged}")
    if seconds_per_solve is None:
        return f"{solves}; time unknown until the first cycle"
    return f"{solves}; about {duration(seconds_per_solve * estimate.total / max(1, concurrency))} at the measured speed"
