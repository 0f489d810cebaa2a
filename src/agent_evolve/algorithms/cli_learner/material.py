"""Hermit's learning material on disk: `current/summary.json` and `current/tasks/<id>.json`, earlier steps archived
as `step_NNNN/`. Only the cycle's train observations are written; holdout and validation never are."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import atomic_write
from agent_evolve.types import Observation

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def task_record(observation: Observation, hidden: bool) -> dict[str, Any]:
    """One task's file: input, output, score, feedback and trajectory (no score or feedback when hidden)."""
    o = observation
    record: dict[str, Any] = {"task_id": o.task.id, "input": o.task.input, "output": o.trajectory.output,
                              "trajectory": {"steps": o.trajectory.steps, "conversation": o.trajectory.conversation}}
    if not hidden:
        record["judge"] = {"score": o.feedback.score, "success": o.feedback.success, "feedback": o.feedback.detail}
    return record


def summary(step: int, observations: list[Observation], hidden: bool) -> dict[str, Any]:
    """The step's summary: its number, the task count and, unless hidden, the mean score and solved count."""
    data: dict[str, Any] = {"step": step, "tasks": len(observations)}
    if not hidden:
        data["mean_score"] = sum(o.feedback.score for o in observations) / len(observations) if observations else 0.0
        data["solved"] = sum(o.feedback.success for o in observations)
    return data


def write_material(folder: Path, step: int, observations: list[Observation], hidden: bool) -> Path:
    """Archive the previous `current/` (unless it is this step's, from an interrupted try) and write this step's."""
    current = folder / "current"
    previous = current / "summary.json"
    if previous.is_file():
        earlier = int(json.loads(previous.read_text(encoding="utf-8")).get("step", 0))
        archive = folder / f"step_{earlier:04d}"
        if earlier != step and not archive.exists():
            current.rename(archive)
    shutil.rmtree(current, ignore_errors=True)
    for o in observations:
        atomic_write(current / "tasks" / f"{_UNSAFE.sub('_', o.task.id)}.json",
                     json.dumps(task_record(o, hidden), indent=1, default=str))
    atomic_write(previous, json.dumps(summary(step, observations, hidden), indent=1))
    return current
