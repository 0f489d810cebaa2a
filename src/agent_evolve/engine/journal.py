"""The cycle journal: each finished phase of each cycle, appended durably, so a restart resumes exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_evolve.engine.records import append_jsonl, read_jsonl

PHASES = ("solved", "stepped", "gated", "recorded")


class Journal:
    """Append-only phase log; a phase is recorded once it is complete and never applied twice."""

    def __init__(self, path: Path):
        self.path = path
        self._entries = read_jsonl(path)

    def record(self, cycle: int, phase: str, **data: Any) -> None:
        if phase not in PHASES and phase not in ("started", "baseline", "finished"):
            raise ValueError(f"unknown journal phase {phase!r}")
        entry = {"cycle": cycle, "phase": phase, **data}
        append_jsonl(self.path, entry, durable=True)
        self._entries.append(entry)

    def phases(self, cycle: int) -> dict[str, dict[str, Any]]:
        """The finished phases of `cycle`, with the data each recorded."""
        return {e["phase"]: e for e in self._entries if e["cycle"] == cycle}

    def has(self, cycle: int, phase: str) -> bool:
        return phase in self.phases(cycle)

    def entries(self, *phases: str) -> list[dict[str, Any]]:
        """Every entry of any of `phases`, oldest first."""
        return [e for e in self._entries if e["phase"] in phases]

    def last_entry(self, *phases: str) -> dict[str, Any] | None:
        """The most recent entry of any of `phases`."""
        found = self.entries(*phases)
        return found[-1] if found else None

    def last_recorded_cycle(self) -> int:
        """The last cycle whose record is complete (0 when only the baseline exists, -1 for a fresh run)."""
        done = [e["cycle"] for e in self._entries if e["phase"] in ("recorded", "baseline")]
        return max(done, default=-1)
