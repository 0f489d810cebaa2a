"""The tracking protocol (a run's events, and what a tracker implements to receive them), and an Evolver run with
trackers attached: the loop's progress events become run events (each recorded cycle read from history)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from agent_evolve.api import Evolver
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.engine.records import RunRecords, read_jsonl
from agent_evolve.types import EvolutionResult
from agent_evolve.userview.run import CycleRow, cycle_row

EventKind = Literal[
    "cycle_started", "task_done", "step_done", "gate_decided", "version_accepted", "budget_spent",
    "cycle_recorded", "run_finished",
]


@dataclass(frozen=True)
class RunEvent:
    """One thing that happened in a run. `cycle_recorded` carries the cycle's metrics in `data["metrics"]`;
    `run_finished` carries the workspace path in `data["workspace"]`."""

    kind: EventKind
    cycle: int
    data: dict[str, Any] = field(default_factory=dict)


class RunTracker(Protocol):
    """Receives every event of a run, in order, on the thread that runs the loop; it must not raise."""

    def on_event(self, event: RunEvent) -> None: ...


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


def run_tracked(evolver: Evolver, trackers: Sequence[RunTracker], cycles: int | None = None, *,
                force: bool = False) -> EvolutionResult:
    """`evolver.run(cycles, force=force)` with every run event sent to `trackers` (the evolver's own display still
    gets its events), then `run_finished` with the workspace, the final score and the stop reason."""
    display, records, phase = evolver.progress, RunRecords(Path(evolver.workspace.path)), [""]

    def emit(event: RunEvent) -> None:
        for tracker in trackers:
            tracker.on_event(event)

    def progress(event: ProgressEvent) -> None:
        if display is not None:
            display(event)
        rows = [r for r in read_jsonl(records.history) if r.get("cycle") == event.cycle] \
            if event.phase == "recorded" else []
        for run_event in translate(event, phase[0], cycle_row(rows[-1]) if rows else None):
            emit(run_event)
        phase[0] = event.phase

    evolver.progress = progress
    try:
        result = evolver.run(cycles, force=force)
    finally:
        evolver.progress = display
    emit(RunEvent("run_finished", result.cycles_completed, {
        "workspace": str(records.workspace), "final_score": result.final_score,
        "stop_reason": result.details.get("stop_reason", "")}))
    return result
