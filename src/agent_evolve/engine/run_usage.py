"""A run's model usage: per-cycle deltas of its own ledger, and their sums for the run records."""

from __future__ import annotations

from typing import Any

from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import Usage


class UsageMeter:
    """Reads a run's ledger cycle by cycle: what each cycle used, by role."""

    def __init__(self, ledger: UsageLedger):
        self.ledger = ledger
        self._mark = ledger.by_role()

    def take(self, reported: dict[str, Any]) -> dict[str, dict[str, float]]:
        """Usage since the last call, by role, plus usage the engine reported outside the metered clients."""
        now = self.ledger.by_role()
        delta = {role: (usage - self._mark.get(role, Usage())).to_dict() for role, usage in now.items()}
        self._mark = now
        if any(reported.values()):
            delta["engine_reported"] = dict(reported)
        return {role: numbers for role, numbers in delta.items() if any(numbers.values())}

    def budget_spent(self) -> bool:
        return self.ledger.budget_problem() is not None


def sum_usage(usages: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Add per-role usage dicts ({role: {calls, input_tokens, output_tokens, cost}})."""
    total: dict[str, dict[str, float]] = {}
    for usage in usages:
        for role, numbers in usage.items():
            bucket = total.setdefault(role, {})
            for key, value in numbers.items():
                bucket[key] = bucket.get(key, 0) + value
    return total
