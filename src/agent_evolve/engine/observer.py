"""Observer (collects a batch's observations) and EvolutionHistory (queries past cycles)."""

from __future__ import annotations

import json
import math
import threading
from dataclasses import replace
from functools import cached_property
from pathlib import Path

from agent_evolve.contract.jsonl import checked_rows
from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.records import RUN_RECORD_FIELDS, RunRecords, read_jsonl, read_jsonl_from
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.types import Feedback, Observation, Task, Trajectory


class Observer:
    """Buffers observations and writes them as one JSONL file per batch."""

    def __init__(self, workspace_path: str | Path):
        self.records = RunRecords(Path(workspace_path))
        self._buffer: list[Observation] = []
        self._lock = threading.Lock()

    def record(self, task: Task, trajectory: Trajectory, feedback: Feedback) -> None:
        """Buffer a single observation."""
        with self._lock:
            self._buffer.append(Observation(task=task, trajectory=trajectory, feedback=feedback))

    def add(self, observations: list[Observation]) -> None:
        """Buffer a batch's observations (shared, not copied)."""
        with self._lock:
            self._buffer.extend(observations)

    def flush(self, batch_label: str = "") -> Path:
        """Write buffered observations to evolution/observations/batch_{label}.jsonl in one atomic write."""
        with self._lock:
            observations, self._buffer = self._buffer, []
        path = self.records.batch_file(batch_label)
        text = "".join(json.dumps(o.to_dict(), sort_keys=True, default=str) + "\n" for o in observations)
        atomic_write(path, text)
        return path

    def get_observations(self) -> list[Observation]:
        """Return buffered observations (not yet flushed)."""
        with self._lock:
            return list(self._buffer)


# cycle-record metadata an engine may see under trajectory_only (everything else carries a score)
SCORELESS_METADATA = ("status", "accepted", "outcome", "accepted_tag", "changed_paths", "reverted_paths",
                      "step_metadata", "usage", "errors")


class EvolutionHistory:
    """Query facade over past cycles (train observations, scores, workspace versions), read incrementally; with
    `trajectory_only` (the engine's view then) no score or feedback comes out."""

    def __init__(self, workspace_path: str | Path, *, trajectory_only: bool = False):
        self.records = RunRecords(Path(workspace_path))
        self.workspace_path = workspace_path
        self.trajectory_only = trajectory_only
        self._lock = threading.Lock()
        self._rows: list[dict] = []
        self._offset = 0
        self._batches: dict[str, list[Observation]] = {}

    @cached_property
    def vc(self) -> VersionControl:
        """The workspace's versions, for diffs and old files (opened when first asked for)."""
        return VersionControl(self.workspace_path)

    def _read(self) -> list[dict]:
        with self._lock:
            path = self.records.history
            if not path.exists() or path.stat().st_size < self._offset:
                self._rows, self._offset = [], 0
            new, self._offset = read_jsonl_from(path, self._offset)
            self._rows.extend(checked_rows(new, path, RUN_RECORD_FIELDS, len(self._rows) + 1))
            return list(self._rows)

    def cycle_records(self) -> list[dict]:
        rows = self._read()
        return [_scoreless(r) for r in rows] if self.trajectory_only else [dict(r) for r in rows]

    def get_observations(self, last_n_cycles: int | None = None, only_failures: bool = False) -> list[Observation]:
        """Train observations from the stored batches, oldest first (under trajectory_only without feedback)."""
        batches = [r.get("observation_batch", "") for r in self._read() if r.get("observation_batch")]
        if last_n_cycles is not None:
            batches = batches[-last_n_cycles:] if last_n_cycles > 0 else []
        observations = [o for batch in batches for o in self._batch(batch)]
        if self.trajectory_only:
            return [] if only_failures else hide_feedback(observations)  # no grade, so no task is known to fail
        if only_failures:
            observations = [o for o in observations if not o.feedback.success]
        return observations

    def _batch(self, batch: str) -> list[Observation]:
        if batch not in self._batches:
            path = Path(batch) if Path(batch).is_absolute() else self.records.workspace / batch
            self._batches[batch] = [Observation.from_dict(row) for row in read_jsonl(path)]
        return self._batches[batch]

    def get_score_curve(self) -> list[tuple[int, float]]:
        """Return (cycle_number, score) pairs for all completed cycles (none under trajectory_only)."""
        if self.trajectory_only:
            return []
        return [(int(r["cycle"]), float(r["score"])) for r in self._read()]

    def get_workspace_diff(self, from_label: str, to_label: str) -> str:
        """Get git diff between two version labels (e.g., 'evo-1', 'evo-5')."""
        return self.vc.get_diff(from_label, to_label)

    def read_file_at(self, version_label: str, path: str) -> str:
        """Read a workspace file as it existed at a given version."""
        return self.vc.show_file_at(version_label, path)


class ScorelessWorkspace(AgentWorkspace):
    """The workspace as an engine sees it under trajectory_only: its run records carry no score."""

    def read_evolution_history(self) -> list[dict]:
        return [_scoreless(r) for r in super().read_evolution_history()]

    def read_evolution_metrics(self) -> dict:
        """Nothing: every run metric is a score or a count of gate outcomes."""
        return {}


def hide_feedback(observations: list[Observation]) -> list[Observation]:
    """trajectory_only: what the agent did, with the grade replaced by the explicit hidden marker."""
    return [replace(o, feedback=Feedback.hidden_marker()) for o in observations]


def _scoreless(record: dict) -> dict:
    metadata = record.get("metadata", {})
    kept = {k: metadata[k] for k in SCORELESS_METADATA if k in metadata}
    return {**record, "score": math.nan, "metadata": kept}
