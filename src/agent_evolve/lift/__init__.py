"""The lift protocol: baseline, evolved and no-evolution arms over several seeds, scored on an untouched test split."""

from __future__ import annotations

from agent_evolve.lift.analysis import summarize
from agent_evolve.lift.control import NoEditEngine
from agent_evolve.lift.plan import CONTROL, DEFAULT_SEEDS, EVOLVED, MIN_TEST_TASKS, ArmRun, LiftPlan, check_test_split
from agent_evolve.lift.report import markdown_table, write_report
from agent_evolve.lift.run import run_lift

__all__ = [
    "CONTROL", "DEFAULT_SEEDS", "EVOLVED", "MIN_TEST_TASKS", "ArmRun", "LiftPlan", "NoEditEngine", "check_test_split",
    "markdown_table", "run_lift", "summarize", "write_report",
]
