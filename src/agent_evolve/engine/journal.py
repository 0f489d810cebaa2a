"""The cycle journal: each finished phase of each cycle, appended durably, and `RunState` rebuilt from it so a
restart resumes exactly; `Phase` is the one definition of the phases (its values are the strings the files hold)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from agent_evolve.contract.jsonl import append_line, checked_rows, read_jsonl
from agent_evolve.engine.records import RUN_RECORD_FIELDS
from agent_evolve.engine.tasks import TaskPlan
from agent_evolve.engine.versioning import BASELINE_TAG


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


CLOSING_PHASES = (Phase.BASELINE, Phase.RECORDED)  # phases that complete a cycle (the baseline: cycle 0)
ACCEPTED_PHASES = (*CLOSING_PHASES, Phase.FINISHED)  # entries that carry the accepted version (the last one wins)
OPEN_PHASES = (Phase.SOLVED, Phase.STEPPED, Phase.GATED)  # phases of a cycle begun but not yet recorded


class Journal:
    """Append-only phase log; a phase is recorded once it is complete and never applied twice."""

    def __init__(self, path: Path):
        self.path = path
        self._entries = checked_rows(read_jsonl(path), path, RUN_RECORD_FIELDS)

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
        return next(reversed(self.entries(*phases)), None)

    def last_usage(self) -> dict[str, Any]:
        """The usage the latest entry holding one recorded ({} when none did)."""
        return next((dict(e["usage"]) for e in reversed(self._entries) if e.get("usage")), {})

    def last_recorded_cycle(self) -> int:
        """The last cycle whose record is complete (0 when only the baseline exists, -1 for a fresh run)."""
        done = [e["cycle"] for e in self._entries if e["phase"] in CLOSING_PHASES]
        return max(done, default=-1)


@dataclass
class RunState:
    """The plan, the batch cursor, the accepted version and its score (holdout, else its mean over the
    `accepted_count` train attempts it made), the baseline, and the usage so far."""

    plan: TaskPlan
    cursor: int = 0
    accepted_tag: str = BASELINE_TAG
    accepted_cycle: int = 0
    accepted_score: float = 0.0
    accepted_count: int = 0
    baseline_score: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)

    @property
    def has_holdout(self) -> bool:
        return bool(self.plan.holdout_ids)

    def accepted_fields(self) -> dict[str, Any]:
        """What a journal entry records about the accepted version and the spent usage."""
        return {"accepted_tag": self.accepted_tag, "accepted_cycle": self.accepted_cycle,
                "accepted_score": self.accepted_score, "accepted_count": self.accepted_count,
                "baseline_score": self.baseline_score, "usage": copy.deepcopy(self.usage)}

    def add_train_scores(self, total: float, count: int) -> None:
        """Without a holdout, fold the accepted version's new train attempts into its running mean."""
        if self.has_holdout or count == 0:
            return
        self.accepted_score = (self.accepted_score * self.accepted_count + total) / (self.accepted_count + count)
        self.accepted_count += count

    def accept(self, tag: str, cycle: int, score: float, count: int) -> None:
        self.accepted_tag, self.accepted_cycle, self.accepted_score, self.accepted_count = tag, cycle, score, count

    @classmethod
    def from_journal(cls, plan: TaskPlan, journal: Journal) -> RunState:
        """The state after the last journaled cycle (the baseline entry when no cycle finished)."""
        baseline = journal.phases(0)[Phase.BASELINE]
        last = journal.last_entry(*ACCEPTED_PHASES) or baseline
        solved = journal.last_entry(Phase.SOLVED)
        return cls(plan=plan, cursor=int(solved["cursor"]) if solved else 0,
                   accepted_tag=last.get("accepted_tag", BASELINE_TAG),
                   accepted_cycle=int(last.get("accepted_cycle", 0)),
                   accepted_score=float(last.get("accepted_score", 0.0)),
                   accepted_count=int(last.get("accepted_count", 0)),
                   baseline_score=float(baseline.get("baseline_score", baseline.get("accepted_score", 0.0))),
                   usage=dict(last.get("usage", {})))
