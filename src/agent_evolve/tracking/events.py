"""The tracking protocol: a run's events, and what a tracker implements to receive them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

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
