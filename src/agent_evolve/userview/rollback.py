"""Rollback: make an earlier version the accepted one, journaled (the last accepted entry with the target's
`accepted_*` fields) so that the next `run` continues from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_evolve.engine import transitions
from agent_evolve.engine.journal import ACCEPTED_PHASES, CLOSING_PHASES, OPEN_PHASES, Journal, Phase
from agent_evolve.engine.records import RunRecords, holding_run_lock, read_json, write_json_atomic
from agent_evolve.engine.versioning import VersionControl, candidate_tag, recover_git
from agent_evolve.errors import WorkspaceError
from agent_evolve.userview.labels import accepted_name, parse_tag, resolve_label
from agent_evolve.userview.run import load_run

# The journal phase whose `accepted_tag` a resumed run continues from (engine.session resumes from it).
ROLLBACK_PHASE = Phase.FINISHED


@dataclass(frozen=True)
class Rollback:
    """What a rollback did: the version that was accepted, the one that is now, and its holdout score."""

    previous: str
    accepted: str
    score: float
    cycle: int


def accepted_fields(journal: list[dict], gate_of: dict[int, dict], tag: str) -> dict | None:
    """What the journal recorded about `tag` when it was accepted (`accepted_*` fields), or for a candidate the
    gate's score of it; None when no holdout score of `tag` is known."""
    entries = [e for e in journal if e.get("phase") in ACCEPTED_PHASES and e.get("accepted_tag") == tag]
    if entries and "accepted_score" in entries[-1]:
        return {k: v for k, v in entries[-1].items() if k.startswith("accepted_")}
    parsed = parse_tag(tag)
    if parsed is not None and parsed[0] is candidate_tag:
        decision = (gate_of.get(parsed[1]) or {}).get("decision") or {}
        if "candidate_score" in decision:
            return {"accepted_tag": tag, "accepted_cycle": parsed[1], "accepted_score": float(decision["candidate_score"]),
                    "accepted_count": 0}
    return None


def unfinished_cycle(journal: list[dict]) -> int | None:
    """A cycle that has phases but no `recorded` entry (a run stopped mid-cycle), or None."""
    recorded = {e.get("cycle") for e in journal if e.get("phase") == Phase.RECORDED}
    started = [e.get("cycle") for e in journal if e.get("phase") in OPEN_PHASES]
    pending = [c for c in started if c not in recorded]
    return int(pending[-1]) if pending else None


def rollback(workspace: str | Path, label: str, *, force: bool = False) -> Rollback:
    """Reset the workspace to `label` and journal it as the accepted version; refuses a never-accepted one
    unless `force`, a run in progress, and a run stopped mid-cycle."""
    path = Path(workspace)
    records = RunRecords(path)
    with holding_run_lock(records):
        recover_git(path)
        run = load_run(path)
        if not any(e.get("phase") == Phase.BASELINE for e in run.journal):
            raise WorkspaceError(f"{records.journal}: the run has no baseline yet; there is nothing to roll back")
        half_done = unfinished_cycle(run.journal)
        if half_done is not None:
            raise WorkspaceError(
                f"{path}: cycle {half_done} stopped halfway; run again to finish it before rolling back"
            )
        tag = resolve_label(path, label)
        accepted = accepted_name(path, tag)
        if accepted is None and not force:
            raise WorkspaceError(f"{label} was never accepted; pass --force to make it the accepted version anyway")
        tag = accepted or tag
        cycles = [int(e["cycle"]) for e in run.journal if e.get("phase") in CLOSING_PHASES]
        gates = {c: run.gate_file(c) for c in cycles}
        fields = accepted_fields(run.journal, gates, tag)
        if fields is None:
            raise WorkspaceError(f"{label} has no recorded holdout score, so the gate could not compare against it")
        latest = [e for e in run.journal if e.get("phase") in ACCEPTED_PHASES][-1]
        entry = {**{k: v for k, v in latest.items() if k not in ("cycle", "phase")}, **fields, "rolled_back_from": latest["accepted_tag"]}
        VersionControl(path).keep_uncommitted("the rollback")
        transitions.rollback(VersionControl(path), tag)
        cycle = max(cycles)
        Journal(records.journal).record(cycle, ROLLBACK_PHASE, **entry)
        score = float(fields["accepted_score"])
        metrics = read_json(records.metrics, {})
        if isinstance(metrics, dict) and metrics:
            write_json_atomic(records.metrics, {**metrics, "accepted_tag": tag, "accepted_score": score})
        return Rollback(previous=str(latest["accepted_tag"]), accepted=tag, score=score, cycle=cycle)
