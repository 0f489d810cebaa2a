"""The cycle journal: each finished phase of each cycle, appended durably, so a restart resumes exactly.

`Phase` names the journal's phases, the one definition every reader imports; its values are the strings journal
files hold, so files written before it read the same.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from agent_evolve.contract.jsonl import append_line, read_jsonl


class Phase(StrEnum):
    """A journal phase: `started` and `baseline` open a run (cycle 0), `finished` closes it, and each cycle is
    `solved`, `stepped`, `gated`, then `recorded`."""

    STARTED = "started"
    BASELINE = "baseline"
    SOLVED = "solved"
    STEPPED = "stepped"
    GATED = "gated"
    RECORDED = "recorded"
    FINISHED = "finished"


CLOSING_PHASES = (Phase.BASELINE, Phase.RECORDED)
"""Phases that complete a cycle (the baseline completes cycle 0)."""

ACCEPTED_PHASES = (*CLOSING_PHASES, Phase.FINISHED)
"""Phases whose entries carry the accepted version (the last one wins)."""

OPEN_PHASES = (Phase.SOLVED, Phase.STEPPED, Phase.GATED)
"""Phases of a cycle begun but not yet recorded."""


class Journal:
    """Append-only phase log; a phase is recorded once it is complete and never applied twice."""

    def __init__(self, path: Path):
        self.path = path
        self._entries = read_jsonl(path)

    def record(self, cycle: int, phase: Phase | str, **data: Any) -> None:
        """Append `phase` of `cycle` with its data; an unknown phase raises ValueError."""
        try:
            known = Phase(phase)
        except ValueError:
            raise ValueError(f"unknown journal phase {phase!r}") from None
        entry = {"cycle": cycle, "phase": known.value, **data}
        append_line(self.path, entry, durable=True, records=True)
        self._entries.append(entry)

    def phases(self, cycle: int) -> dict[str, dict[str, Any]]:
        """The finished phases of `cycle`, with the data each recorded."""
        return {e["phase"]: e for e in self._entries if e["cycle"] == cycle}

    def has(self, cycle: int, phase: Phase) -> bool:
        return phase in self.phases(cycle)

    def entries(self, *phases: Phase) -> list[dict[str, Any]]:
        """Every entry of any of `phases`, oldest first."""
        return [e for e in self._entries if e["phase"] in phases]

    def last_entry(self, *phases: Phase) -> dict[str, Any] | None:
        """The most recent entry of any of `phases`."""
        found = self.entries(*phases)
        return found[-1] if found else None

    def last_recorded_cycle(self) -> int:
        """The last cycle whose record is complete (0 when only the baseline exists, -1 for a fresh run)."""
        done = [e["cycle"] for e in self._entries if e["phase"] in CLOSING_PHASES]
        return max(done, default=-1)
