"""Run an Evolver with trackers attached to its progress events, then tell them the run finished."""

from __future__ import annotations

from collections.abc import Sequence

from agent_evolve.api import Evolver
from agent_evolve.tracking.adapter import TrackingProgress
from agent_evolve.tracking.events import RunTracker
from agent_evolve.types import EvolutionResult


def run_tracked(evolver: Evolver, trackers: Sequence[RunTracker], cycles: int | None = None) -> EvolutionResult:
    """`evolver.run(cycles)` with every run event sent to `trackers` (the evolver's own display still gets its events)."""
    progress = TrackingProgress(evolver.workspace.path, trackers, display=evolver.progress)
    evolver.progress = progress
    try:
        result = evolver.run(cycles)
    finally:
        evolver.progress = progress.display
    progress.finish(result.cycles_completed, final_score=result.final_score, stop_reason=result.details.get("stop_reason", ""))
    return result
