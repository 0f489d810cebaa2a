"""A run's model usage: per-cycle deltas of its own ledger, engine-reported usage charged to it, and sums."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import Usage

ENGINE_REPORTED_ROLE = "engine_reported"  # the ledger role of usage an engine reports in `StepResult.usage`


class UsageMeter:
    """Reads a run's ledger cycle by cycle: what each cycle used, by role."""

    def __init__(self, ledger: UsageLedger, since: Mapping[str, Any] | None = None):
        """Count from `since` (a `UsageLedger.to_dict()`, as a journal holds it), else from the ledger now."""
        self.ledger = ledger
        self._mark = UsageLedger.from_dict(since).by_role() if since else ledger.by_role()

    def take(self) -> dict[str, dict[str, float]]:
        """Usage since the last call, by role (engine-reported usage is a role of the ledger like the others)."""
        now = self.ledger.by_role()
        delta = {role: (usage - self._mark.get(role, Usage())).to_dict() for role, usage in now.items()}
        self._mark = now
        return {role: numbers for role, numbers in delta.items() if any(numbers.values())}

    def budget_spent(self) -> bool:
        return self.ledger.budget_problem() is not None


def reported_charge(reported: Usage, metered: Usage) -> Usage:
    """What to charge for usage an engine reported (meant to be outside the metered clients: charged whole); a
    report equal to the call's `metered` usage is that usage reported again, so nothing is charged."""
    return Usage() if reported == metered else reported


def charge_reported(ledger: UsageLedger, reported: Usage, metered_before: Usage) -> Usage:
    """Charge an engine's reported usage to the run's ledger (once); returns what was charged."""
    charge = reported_charge(reported, ledger.total() - metered_before)
    if charge != Usage():
        ledger.record(ENGINE_REPORTED_ROLE, charge)
    return charge


def sum_usage(usages: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Add per-role usage dicts ({role: {calls, input_tokens, output_tokens, cost}})."""
    total: dict[str, dict[str, float]] = {}
    for usage in usages:
        for role, numbers in usage.items():
            bucket = total.setdefault(role, {})
            for key, value in numbers.items():
                bucket[key] = bucket.get(key, 0) + value
    return total
