"""The run's summary (`metrics.json`) and each cycle's outcome label, from the cycle records; pure."""

from __future__ import annotations

from collections import Counter
from typing import Any

from agent_evolve.engine.gate import GateOutcome
from agent_evolve.engine.run_usage import sum_usage
from agent_evolve.engine.state import RunState
from agent_evolve.engine.stepping import StepOutcome


def run_metrics(records: list[dict[str, Any]], state: RunState, spent: dict[str, Any]) -> dict[str, Any]:
    """Counts of outcomes, the baseline and accepted scores, errors and usage of a run so far."""
    outcomes = [r["metadata"].get("outcome") for r in records]
    scored = [r for r in records if r["metadata"].get("graded", 0)]
    baseline = state.baseline_score if state.has_holdout else (scored[0]["score"] if scored else 0.0)
    return {
        "baseline_score": baseline,
        "accepted_score": state.accepted_score,
        "accepted_tag": state.accepted_tag,
        "batch_score": scored[-1]["score"] if scored else None,
        "cycles": len(records),
        "accepted": outcomes.count("accepted"),
        "rejected": outcomes.count("rejected"),
        "unchanged": outcomes.count("unchanged"),
        "failed": outcomes.count("failed") + outcomes.count("out_of_budget"),
        "errors": dict(sum((Counter(r["metadata"].get("errors", {})) for r in records), Counter())),
        "holdout_size": len(state.plan.holdout_ids),
        "usage": sum_usage([r["metadata"].get("usage", {}) for r in records]),
        "spent": spent,
    }


def outcome_label(outcome: StepOutcome, verdict: GateOutcome) -> str:
    """accepted, rejected, unchanged, failed or out_of_budget."""
    if outcome.status in ("failed", "out_of_budget"):
        return outcome.status
    if verdict.failure:
        return "failed"
    if verdict.decision is None:
        return "unchanged"
    return "accepted" if verdict.accepted else "rejected"
