"""Paired statistics for comparing two arms task by task: the table, the sign test, the bootstrap interval."""

from __future__ import annotations

from agent_evolve.stats.bootstrap import paired_bootstrap_ci
from agent_evolve.stats.paired import TOLERANCE, PairedRow, PairedTable, mean
from agent_evolve.stats.sign_test import sign_test_p
from agent_evolve.stats.summary import lift_summary

__all__ = ["TOLERANCE", "PairedRow", "PairedTable", "lift_summary", "mean", "paired_bootstrap_ci", "sign_test_p"]
