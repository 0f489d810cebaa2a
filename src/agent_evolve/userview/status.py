"""Where a run is (cycle, phase, tasks done, spent), read from its journal and history; it never writes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent_evolve.engine.journal import ACCEPTED_PHASES, Phase
from agent_evolve.engine.run_lock import run_is_live
from agent_evolve.userview.run import accepted_version, load_run

# What a run does next after the last journaled phase of a cycle.
_NEXT_PHASE = {
    Phase.STARTED: "scoring the baseline",
    Phase.BASELINE: "solving train tasks",
    Phase.SOLVED: "engine step",
    Phase.STEPPED: "gate",
    Phase.GATED: "recording the cycle",
    Phase.RECORDED: "solving train tasks",
}


@dataclass(frozen=True)
class RunStatus:
    """A run's position and spending; `phase` is what the run is doing (live), would do next (stopped), or
    why it ended (`finished`: it returned from its last cycle, with `ended` the stop reason)."""

    live: bool
    finished: bool
    ended: str
    cycle: int
    phase: str
    last_phase: str
    cycles_recorded: int
    tasks_done: int
    accepted_tag: str
    accepted_score: float | None
    tokens: int
    cost: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def status_of(journal: list[dict[str, Any]], tokens: int, cost: float, live: bool, ended: str = "") -> RunStatus:
    """The status a journal describes (pure); `ended` is the stop reason a run that returned recorded."""
    last = journal[-1] if journal else {"cycle": 0, "phase": Phase.STARTED.value}
    last_phase = str(last.get("phase", ""))
    cycle = int(last.get("cycle", 0))
    finished = bool(ended) and not live and last_phase in ACCEPTED_PHASES
    if finished:
        phase = f"finished: {ended}"
    elif last_phase in ACCEPTED_PHASES:
        cycle, phase = cycle + 1, _NEXT_PHASE[Phase.RECORDED]
    else:
        phase = _NEXT_PHASE.get(last_phase, last_phase)
    if not live and not finished:
        phase = f"stopped; next: {phase}"
    tag, score = accepted_version(journal)
    return RunStatus(
        live=live, finished=finished, ended=ended if finished else "", cycle=cycle, phase=phase, last_phase=last_phase,
        cycles_recorded=len({e.get("cycle") for e in journal if e.get("phase") == Phase.RECORDED}),
        tasks_done=sum(len(e.get("batch_ids") or []) for e in journal if e.get("phase") == Phase.SOLVED),
        accepted_tag=tag, accepted_score=score, tokens=tokens, cost=cost)


def run_status(workspace: str | Path) -> RunStatus:
    """The status of the run in `workspace`, safe while that run is writing (torn last lines are skipped)."""
    run = load_run(workspace)
    rows = run.rows
    journal = run.paths.journal
    writing = journal.exists() and journal.read_bytes()[-1:] not in (b"", b"\n")  # a line is half-appended
    ended = "" if writing else str(run.metrics.get("ended") or "")
    return status_of(run.journal, sum(r.tokens for r in rows), sum(r.cost for r in rows), run_is_live(run.paths), ended)
