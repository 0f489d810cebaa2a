"""A run's records read back (history, journal, metrics, gate files), defensively since a live run may be mid-append:
one row per cycle, and where the run is (cycle, phase, tasks done, spent); nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.contract.jsonl import checked_rows
from agent_evolve.engine.journal import ACCEPTED_PHASES, Phase
from agent_evolve.engine.records import RUN_RECORD_FIELDS, RunRecords, read_json, read_jsonl, run_is_live
from agent_evolve.engine.run_metrics import scored_on
from agent_evolve.engine.versioning import BASELINE_TAG
from agent_evolve.errors import WorkspaceError
from agent_evolve.types import Observation


@dataclass(frozen=True)
class CycleRow:
    """One cycle as a user reads it: what happened, the scores, what changed and what it cost."""

    cycle: int
    outcome: str
    score: float
    holdout_score: float | None
    batch_score: float | None
    accepted_tag: str
    summary: str
    changed_paths: list[str]
    tokens: int
    cost: float
    gate: dict[str, Any] | None


def score_text(value: float | None) -> str:
    """A score as the user views print it: three decimals, "-" when there is none."""
    return "-" if value is None else f"{value:.3f}"


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def usage_totals(usage: Any) -> tuple[int, float]:
    """Tokens and cost of a per-role usage dict ({role: {input_tokens, output_tokens, cost}})."""
    tokens, cost = 0, 0.0
    for numbers in (usage or {}).values() if isinstance(usage, dict) else ():
        if isinstance(numbers, dict):
            tokens += int(numbers.get("input_tokens", 0) or 0) + int(numbers.get("output_tokens", 0) or 0)
            cost += float(numbers.get("cost", 0.0) or 0.0)
    return tokens, cost


def cycle_row(record: dict[str, Any]) -> CycleRow:
    """A history.jsonl record as a row; the holdout score is the accepted version's, the batch score the train batch's."""
    meta = record.get("metadata") or {}
    score = _float(record.get("score")) or 0.0
    holdout = _float(meta.get("holdout_score", meta.get("accepted_score")))
    tokens, cost = usage_totals(meta.get("usage"))
    return CycleRow(
        cycle=int(record.get("cycle", 0)), outcome=str(meta.get("outcome", "unknown")), score=score,
        holdout_score=holdout if holdout is not None else score,  # old records kept the holdout score as `score`
        batch_score=_float(meta.get("batch_score")), accepted_tag=str(meta.get("accepted_tag", "")),
        summary=str(record.get("summary", "")), changed_paths=[str(p) for p in meta.get("changed_paths") or []],
        tokens=tokens, cost=cost, gate=meta.get("gate") if isinstance(meta.get("gate"), dict) else None)


def accepted_version(journal: list[dict[str, Any]]) -> tuple[str, float | None]:
    """The accepted tag and score a resumed run continues from: the last baseline, recorded or finished entry."""
    found = [e for e in journal if e.get("phase") in ACCEPTED_PHASES and e.get("accepted_tag")]
    if not found:
        return BASELINE_TAG, None
    return str(found[-1]["accepted_tag"]), _float(found[-1].get("accepted_score"))


def baseline_score(journal: list[dict[str, Any]]) -> float | None:
    """The starting workspace's holdout score, once the baseline was scored."""
    return next((_float(e.get("accepted_score")) for e in journal if e.get("phase") == Phase.BASELINE), None)


def accepted_tags(journal: list[dict[str, Any]]) -> list[str]:
    """Every tag that was ever the accepted version, in the order it became so."""
    tags = (str(e["accepted_tag"]) for e in journal if e.get("phase") in ACCEPTED_PHASES and e.get("accepted_tag"))
    return list(dict.fromkeys(tags))  # first appearances, in order


@dataclass
class RunView:
    """Everything a run has recorded, read once; nothing here writes."""

    workspace: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    journal: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def rows(self) -> list[CycleRow]:
        return [cycle_row(r) for r in self.records]

    @property
    def scored_on(self) -> str:
        """`scored_on` of the recorded holdout size (a run that recorded none yet counts as gated)."""
        return scored_on(int(self.metrics.get("holdout_size", 1)))

    @property
    def paths(self) -> RunRecords:
        return RunRecords(self.workspace)

    def gate_file(self, cycle: int) -> dict[str, Any]:
        """The gate's record of `cycle` (decision and per-task scores), or {} when the cycle was not gated."""
        data = read_json(self.paths.gate / f"cycle_{cycle}.json", {})
        return data if isinstance(data, dict) else {}

    def holdout_scores(self, cycle: int) -> dict[str, float]:
        """The gated candidate's holdout score per task at `cycle` (the mean over repeats), {} when not gated."""
        data = self.gate_file(cycle)
        if isinstance(data.get("tasks"), list):
            return {str(t["task_id"]): float(t["score"]) for t in data["tasks"] if isinstance(t, dict) and "task_id" in t}
        scores = (data.get("candidate") or {}).get("scores") or {}
        return {str(task): sum(values) / len(values) for task, values in scores.items() if values}

    def observations(self) -> dict[int, list[Observation]]:
        """The train observations of every recorded cycle, by cycle."""
        found: dict[int, list[Observation]] = {}
        for record in self.records:
            batch = record.get("observation_batch")
            if batch:
                rows = read_jsonl(self.workspace / batch)
                found[int(record["cycle"])] = [Observation.from_dict(r) for r in rows]
        return found


def load_run(workspace: str | Path) -> RunView:
    """Read a workspace's run records; a workspace that never ran is an error naming its records folder."""
    path = Path(workspace)
    records = RunRecords(path)
    if not records.journal.exists() and not records.history.exists():
        raise WorkspaceError(f"{records.root}: no run records here; start one with `agent-evolve run`")
    metrics = read_json(records.metrics, {})
    history, journal = (checked_rows(read_jsonl(file), file, RUN_RECORD_FIELDS)
                        for file in (records.history, records.journal))
    return RunView(path, history, journal, metrics if isinstance(metrics, dict) else {})


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
