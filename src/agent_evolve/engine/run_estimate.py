"""What a run will spend before it starts and, once its first cycle is measured, how long the rest takes: one owner
for the command line's plan line and the Python API's estimate."""

from __future__ import annotations

from dataclasses import dataclass

from agent_evolve.config import EvolveConfig
from agent_evolve.engine.tasks import plan_tasks

LOCAL_SECONDS_PER_SOLVE = 20  # rough, before anything is measured: a ~200-token answer at ~10 tokens/s on 2 cores


@dataclass(frozen=True)
class Estimate:
    """The most solves a run makes: the starting agent on the holdout, then per cycle a batch and a gate (without a
    holdout, no gate: a kept candidate re-solves its batch instead). The engine's own trial solves come on top."""

    baseline: int
    batch: int
    gate: int
    cycles: int

    @classmethod
    def of(cls, holdout: int, train: int, config: EvolveConfig, cycles: int) -> Estimate:
        """The solves of `cycles` cycles with `holdout` holdout and `train` train tasks under `config`."""
        baseline = holdout * config.gate_repeats
        gate = baseline * (2 if config.gate_remeasure_incumbent else 1)
        return cls(baseline, min(config.batch_size, train), gate, cycles)

    @property
    def per_cycle(self) -> int:
        return self.batch + (self.gate if self.baseline else self.batch)

    @property
    def total(self) -> int:
        return self.baseline + self.cycles * self.per_cycle

    def time_left(self, cycle: int, elapsed: float) -> str:
        """After `cycle` cycles took `elapsed` seconds: the speed measured so far and the time the rest needs."""
        per_solve = elapsed / max(1, self.baseline + cycle * self.per_cycle)
        left = self.cycles - cycle
        return (f"measured {per_solve:.1f} s per solve; about {duration(per_solve * left * self.per_cycle)} "
                f"for the {left} cycle{'s' if left != 1 else ''} left")


def estimate_solves(config: EvolveConfig, train_pool: int, cycles: int | None = None) -> Estimate:
    """The solves `config` asks for on a train pool of `train_pool` tasks (`cycles`, default its `max_cycles`)."""
    plan = plan_tasks([str(i) for i in range(train_pool)], config.holdout_ratio, config.seed, config.holdout_limit,
                      config.val_ratio, config.val_limit)
    return Estimate.of(len(plan.holdout_ids), len(plan.train_ids), config,
                       config.max_cycles if cycles is None else cycles)


def duration(seconds: float) -> str:
    """`seconds` as a person reads a wait: 40 s, 12 min, 3.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
