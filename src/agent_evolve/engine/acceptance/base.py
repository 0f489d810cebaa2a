"""The acceptance strategy protocol: given the paired per-task table, keep the candidate or not, and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from agent_evolve.stats import PairedTable


@dataclass(frozen=True)
class Verdict:
    """A strategy's answer: accepted or not, the reason, and the statistic that decided it."""

    accepted: bool
    reason: str
    statistic: str
    value: float
    p_value: float | None = None
    margin: float = 0.0


class AcceptanceStrategy(Protocol):
    """Decides whether a candidate replaces the incumbent from their scores on the same holdout tasks.

    `table` pairs the incumbent (baseline arm) and the candidate task by task, repeats already averaged; it has
    at least one row. `best_so_far` is the best holdout score measured earlier in the run, None before any.
    A strategy is pure: same table, same verdict. `monotone` declares that raising the candidate's score (or
    lowering the incumbent's) on any one task never turns an accept into a reject; the gate's curtailment stops
    scoring early only for a monotone strategy (`agent_evolve.engine.curtailment`).
    """

    name: str
    monotone: bool

    def decide(self, table: PairedTable, *, best_so_far: float | None) -> Verdict: ...
