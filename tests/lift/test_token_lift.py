"""Lift per 1,000 tokens beside lift: a technique's price next to its gain in lift.md."""

from __future__ import annotations

from agent_evolve.lift.report import lift_per_thousand_tokens, token_lift_lines


def test_lift_per_thousand_tokens_is_lift_over_tokens_per_seed() -> None:
    assert lift_per_thousand_tokens(0.1, 50_000) == 0.002
    assert lift_per_thousand_tokens(0.1, 0) is None, "a model that reports no usage has no price"


def test_the_report_section_divides_each_arms_tokens_by_its_seeds() -> None:
    report = {"plan": {"seeds": [0, 1]}, "runs": [{"seed": 0}, {"seed": 1}], "control": [{"seed": 0}, {"seed": 1}],
              "arms": {"evolved": {"mean_lift": 0.125, "cost": {"tokens": 200_000}},
                       "control": {"mean_lift": 0.0, "cost": {"tokens": 0}}}}
    lines = token_lift_lines(report)
    assert "| evolved | +0.125 | 100,000 | +1.25e-03 |" in lines
    assert "| control | +0.000 | 0 | - |" in lines


def test_a_run_in_progress_divides_by_the_seeds_the_arm_has_scored_not_the_planned_ones() -> None:
    report = {"plan": {"seeds": [0, 1, 2]}, "runs": [{"seed": 0}], "control": [], "matched": [],
              "arms": {"evolved": {"mean_lift": 0.125, "cost": {"tokens": 100_000}}}}
    assert "| evolved | +0.125 | 100,000 | +1.25e-03 |" in token_lift_lines(report)
