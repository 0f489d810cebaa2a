"""The lift protocol: a registered plan; baseline, evolved, no-evolution and compute-matched arms over several seeds,
scored in several draws on a test split whose every view is in a hash-chained ledger."""

from __future__ import annotations

from agent_evolve.lift.analysis import summarize
from agent_evolve.lift.comparison import comparison_markdown, run_comparison, write_comparison
from agent_evolve.lift.plan import (
    CONTROL, DEFAULT_DRAWS, DEFAULT_SEEDS, EVOLVED, MATCHED, MIN_TEST_TASKS, ArmRun, ComparisonPlan, LiftPlan,
    check_test_split,
)
from agent_evolve.lift.report import markdown_table, write_report
from agent_evolve.lift.run import NoEditEngine, run_lift

__all__ = [
    "CONTROL", "DEFAULT_DRAWS", "DEFAULT_SEEDS", "EVOLVED", "MATCHED", "MIN_TEST_TASKS", "ArmRun", "ComparisonPlan",
    "LiftPlan", "NoEditEngine",
    "check_test_split", "comparison_markdown", "markdown_table", "run_comparison", "run_lift", "summarize",
    "write_comparison", "write_report",
]
