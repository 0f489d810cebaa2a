"""Observer (collects a batch's observations) and EvolutionHistory (queries past cycles)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.records import RunRecords, read_jsonl
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


class EvolutionHistory:
    """Query facade over past cycles: stored train observations, scores, and workspace versions."""

    def __init__(self, workspace_path: str | Path):
        self.records = RunRecords(Path(workspace_path))
        self.vc = VersionControl(workspace_path)

    def cycle_records(self) -> list[dict]:
        return read_jsonl(self.records.history)

    def get_observations(self, last_n_cycles: int | None = None, only_failures: bool = False) -> list[Observation]:
        """Read train observations from the stored batches, oldest first."""
        batches = [r.get("observation_batch", "") for r in self.cycle_records() if r.get("observation_batch")]
        if last_n_cycles is not None:
            batches = batches[-last_n_cycles:] if last_n_cycles > 0 else []
        observations = []
        for batch in batches:
            path = Path(batch) if Path(batch).is_absolute() else self.records.workspace / batch
            observations.extend(Observation.from_dict(row) for row in read_jsonl(path))
        if only_failures:
            observations = [o for o in observations if not o.feedback.success]
        return observations

    def get_score_curve(self) -> list[tuple[int, float]]:
        """Return (cycle_number, score) pairs for all completed cycles."""
        return [(int(r["cycle"]), float(r["score"])) for r in self.cycle_records()]

    def get_workspace_diff(self, from_label: str, to_label: str) -> str:
        """Get git diff between two version labels (e.g., 'evo-1', 'evo-5')."""
        return self.vc.get_diff(from_label, to_label)

    def read_file_at(self, version_label: str, path: str) -> str:
        """Read a workspace file as it existed at a given version."""
        return self.vc.show_file_at(version_label, path)
