"""Run an Evolver with trackers attached: the loop's progress events become run events (each recorded cycle read
from history), and the trackers hear when the run finished."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agent_evolve.api import Evolver
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.engine.records import RunRecords, read_jsonl
from agent_evolve.tracking.events import RunEvent, RunTracker
from agent_evolve.types import EvolutionResult
from agent_evolve.userview.run import CycleRow, cycle_row

_TASK_PHASES = ("baseline", "solve", "gate")


def cycle_metrics(row: CycleRow) -> dict[str, float]:
    """The numbers a tracker logs for one recorded cycle."""
    metrics = {"cycle_score": row.score, "tokens": float(row.tokens), "cost_usd": row.cost,
               "accepted": float(row.outcome == "accepted")}
    for name, value in (("holdout_score", row.holdout_score), ("batch_score", row.batch_score)):
        if value is not None:
            metrics[name] = value
    return metrics


def translate(event: ProgressEvent, previous_phase: str, row: CycleRow | None) -> list[RunEvent]:
    """The run events one progress event means, given the phase before it and (at `recorded`) the cycle's row."""
    found: list[RunEvent] = []
    if previous_phase == "step" and event.phase != "step":
        found.append(RunEvent("step_done", event.cycle))
    if event.phase == "solve" and event.done == 0 and previous_phase != "solve":
        found.append(RunEvent("cycle_started", event.cycle, {"tasks": event.total}))
    elif event.phase in _TASK_PHASES and event.done > 0:
        found.append(RunEvent("task_done", event.cycle, {"phase": event.phase, "done": event.done, "total": event.total}))
    elif event.phase == "out_of_budget":
        found.append(RunEvent("budget_spent", event.cycle, {"message": event.message}))
    elif event.phase == "recorded" and row is not None:
        if row.gate is not None:
            found.append(RunEvent("gate_decided", event.cycle, {"gate": row.gate, "outcome": row.outcome}))
        if row.outcome == "accepted":
            found.append(RunEvent("version_accepted", event.cycle, {"tag": row.accepted_tag, "score": row.holdout_score}))
        found.append(RunEvent("cycle_recorded", event.cycle, {"metrics": cycle_metrics(row), "summary": row.summary}))
    return found


class TrackingProgress:
    """A `progress` callable for the loop: forwards each event to a display and its run events to trackers."""

    def __init__(self, workspace: str | Path, trackers: Sequence[RunTracker],
                 display: Callable[[ProgressEvent], None] | None = None) -> None:
        self.records = RunRecords(Path(workspace))
        self.trackers = list(trackers)
        self.display = display
        self.phase = ""

    def __call__(self, event: ProgressEvent) -> None:
        if self.display is not None:
            self.display(event)
        row = self._row(event.cycle) if event.phase == "recorded" else None
        for run_event in translate(event, self.phase, row):
            self.emit(run_event)
        self.phase = event.phase

    def emit(self, event: RunEvent) -> None:
        for tracker in self.trackers:
            tracker.on_event(event)

    def finish(self, cycle: int, **data: Any) -> None:
        """Tell the trackers the run ended (they log the report and close)."""
        self.emit(RunEvent("run_finished", cycle, {"workspace": str(self.records.workspace), **data}))

    def _row(self, cycle: int) -> CycleRow | None:
        rows = [r for r in read_jsonl(self.records.history) if r.get("cycle") == cycle]
        return cycle_row(rows[-1]) if rows else None


def run_tracked(evolver: Evolver, trackers: Sequence[RunTracker], cycles: int | None = None, *,
                force: bool = False) -> EvolutionResult:
    """`evolver.run(cycles, force=force)` with every run event sent to `trackers` (the evolver's own display still
    gets its events)."""
    progress = TrackingProgress(evolver.workspace.path, trackers, display=evolver.progress)
    evolver.progress = progress
    try:
        result = evolver.run(cycles, force=force)
    finally:
        evolver.progress = progress.display
    progress.finish(result.cycles_completed, final_score=result.final_score, stop_reason=result.details.get("stop_reason", ""))
    return result
