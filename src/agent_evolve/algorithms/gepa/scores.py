"""The score ledger: every (candidate, task) score a GEPA search paid for, appended and fsynced before it is used.
It lives beside the engine state, which a crash rolls back, so a rerun reads the scores already paid for."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agent_evolve.engine.records import append_jsonl, read_jsonl

LEDGER_NAME = "gepa_scores.jsonl"


class ScoreLedger:
    """Append-only scores by candidate id and task id; train entries also keep the output and feedback."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()
        for entry in read_jsonl(path):
            self._entries.setdefault((entry["candidate"], entry["task_id"]), entry)

    def get(self, candidate: str, task_id: str) -> dict[str, Any] | None:
        return self._entries.get((candidate, task_id))

    def has(self, candidate: str, task_id: str) -> bool:
        return (candidate, task_id) in self._entries

    def record(self, candidate: str, task_id: str, score: float, output: str = "", feedback: str = "") -> None:
        """Append one score (once per candidate and task; a second record of the same pair is ignored)."""
        entry = {"candidate": candidate, "task_id": task_id, "score": float(score), "output": output,
                 "feedback": feedback}
        with self._lock:
            if not self.has(candidate, task_id):
                append_jsonl(self.path, entry)
                self._entries[(candidate, task_id)] = entry

    def scores(self, candidate: str, task_ids: list[str]) -> dict[str, float]:
        """The recorded scores of `candidate` on those of `task_ids` it has."""
        return {t: float(self._entries[(candidate, t)]["score"]) for t in task_ids if (candidate, t) in self._entries}

    def table(self, candidates: list[str], task_ids: list[str]) -> dict[str, dict[str, float]]:
        """candidate -> task -> score over `task_ids` (GEPA's validation score table)."""
        return {c: self.scores(c, task_ids) for c in candidates}
