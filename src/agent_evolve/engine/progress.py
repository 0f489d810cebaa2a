"""The live display's events: a phase change or a finished task of a run, and an experiment's own phases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ARM_PHASE", "BASELINE_SCORED", "TEST_PHASE", "Progress", "ProgressEvent"]

ARM_PHASE = "arm"    # an experiment starts another arm; the event's message names it and its seed
TEST_PHASE = "test"  # an experiment scores a workspace on its test split, outside any cycle
BASELINE_SCORED = "baseline_scored"  # the baseline's holdout score is known (the event's score and total)


@dataclass
class ProgressEvent:
    """A phase change or a finished task, for live displays: the loop's phases, and an experiment's
    ``ARM_PHASE`` and ``TEST_PHASE``."""

    cycle: int
    phase: str
    done: int = 0
    total: int = 0
    score: float | None = None
    message: str = ""


Progress = Callable[[ProgressEvent], None]  # a live display: hears every ProgressEvent
