"""Lift per 1,000 tokens: an arm's mean lift against the tokens one seed spent, beside `lift per 100 solves`, so a
technique that buys lift with more calls per task shows its price."""

from __future__ import annotations

from typing import Any

from agent_evolve.lift.plan import ARM_ROWS


def lift_per_thousand_tokens(lift: float, tokens: float) -> float | None:
    """`lift` per 1,000 `tokens` (None when no token was counted: a model that reports no usage)."""
    return 1000 * lift / tokens if tokens > 0 else None


def token_lift_lines(report: dict[str, Any]) -> list[str]:
    """lift.md's section: each arm's mean lift, its tokens per seed it has scored (all but in a run in progress)
    and its lift per 1,000 tokens."""
    lines = ["## Lift per 1,000 tokens", "", "| arm | mean lift | tokens per seed | lift per 1,000 tokens |",
             "|---|---:|---:|---:|"]
    for name, arm in report["arms"].items():
        tokens = float(arm["cost"].get("tokens", 0)) / max(1, len(report[ARM_ROWS[name]]))
        value = lift_per_thousand_tokens(arm["mean_lift"], tokens)
        shown = "-" if value is None else f"{value:+.2e}"
        lines.append(f"| {name} | {arm['mean_lift']:+.3f} | {tokens:,.0f} | {shown} |")
    return [*lines, ""]
