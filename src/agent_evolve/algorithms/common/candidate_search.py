"""Search with measurement: candidate edits scored on the same train tasks; only the best may be kept.

Each candidate (whole-file writes inside the evolvable layers) is scored in a copy of the workspace, as is the
working copy; the winner must beat the working copy, else nothing is written. Bundles, curtailment and the
candidates not proposed again are described where they are done (`bundled`, `out_of_the_running`, `fingerprint`).
"""

from __future__ import annotations

import hashlib
import random
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent_evolve.contract.paths import RECORDS_DIR, atomic_write
from agent_evolve.contract.regular_files import copy_tree
from agent_evolve.engine.curtailment import StopRule
from agent_evolve.engine.trial import TrialRunner, trial_mean

JOIN = "+"  # joins the kinds of a bundle in the `candidates` param


@dataclass(frozen=True)
class CandidateEdit:
    """A named edit: workspace-relative paths and their new contents."""

    name: str
    files: Mapping[str, str]
    summary: str = ""


def bundle_parts(entry: str) -> tuple[str, ...]:
    """The kinds a `candidates` entry names: one for a plain kind, several for a bundle."""
    return tuple(part.strip() for part in entry.split(JOIN))


def bundled(entry: str, found: Sequence[CandidateEdit], kind_of: Callable[[CandidateEdit], str]) -> CandidateEdit | None:
    """The bundle `entry` made of the first candidate of each of its kinds in `found`; None when a part has no
    candidate or two parts write the same file."""
    parts = [next((c for c in found if kind_of(c) == kind), None) for kind in bundle_parts(entry)]
    chosen = [c for c in parts if c is not None]
    paths = [path for c in chosen for path in c.files]
    if len(chosen) < len(parts) or len(paths) != len(set(paths)):
        return None
    files = {path: text for c in chosen for path, text in c.files.items()}
    return CandidateEdit(entry, files, "; ".join(c.summary for c in chosen))


def fingerprint(candidate: CandidateEdit, accepted: str) -> str:
    """The candidate's files written on the accepted version `accepted`: equal fingerprints, the same version."""
    digest = hashlib.sha256(accepted.encode("utf-8"))
    for path, text in sorted(candidate.files.items()):
        digest.update(b"\0" + path.encode("utf-8") + b"\0" + text.encode("utf-8"))
    return digest.hexdigest()[:16]


def rejected(written: Mapping[str, str], records: Sequence[Mapping[str, Any]]) -> set[str]:
    """The fingerprints of the candidates written (`written`: cycle -> fingerprint) whose cycle the gate rejected,
    by the run's cycle records."""
    return {written[str(r.get("cycle"))] for r in records
            if str(r.get("cycle")) in written and (r.get("metadata") or {}).get("outcome") == "rejected"}


def untried_first(candidates: Sequence[CandidateEdit], records: Sequence[Mapping[str, Any]],
                  accepted: str) -> list[CandidateEdit]:
    """`candidates` with those writing none of the files the gate rejected against `accepted` first, order kept
    within each part: each cycle tries another technique before another draw of one the gate turned down."""
    tried = {path for r in records if (m := r.get("metadata") or {}).get("outcome") == "rejected"
             and m.get("accepted_tag") == accepted for path in m.get("changed_paths", [])}
    return sorted(candidates, key=lambda c: not tried.isdisjoint(c.files))


@dataclass
class SearchResult:
    """The trial scores of the working copy and every candidate, and the winner (None: keep the working copy);
    `stopped`: tasks a curtailed candidate was scored on; `cost`: calls and tokens per task ("current" too)."""

    task_ids: list[str]
    incumbent: float
    scores: dict[str, float] = field(default_factory=dict)
    best: str | None = None
    stopped: dict[str, int] = field(default_factory=dict)
    cost: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def describe(self, name: str) -> str:
        """`name`'s trial score (or where it was stopped) and its model calls and tokens per task beyond the working
        copy's, for a step summary."""
        current, own = self.cost.get("current", {}), self.cost.get(name, {})
        calls, tokens = (own.get(key, 0.0) - current.get(key, 0.0) for key in ("calls", "tokens"))
        cost = f"{calls:+.1f} calls, {tokens:+.0f} tokens per task"
        if name in self.stopped:
            return f"{name} out after {self.stopped[name]} of {len(self.task_ids)} tasks ({cost})"
        return f"{name} {self.scores[name]:.2f} ({cost})"


def pick_best(incumbent: float, scores: Mapping[str, float], min_gain: float = 0.0) -> str | None:
    """The highest-scoring candidate that beats `incumbent` by more than `min_gain`; the first one on ties."""
    return max((name for name, score in scores.items() if score - incumbent > min_gain), key=scores.__getitem__,
               default=None)


def trial_ids(train_ids: Sequence[str], exclude: Sequence[str], size: int, seed: str) -> list[str]:
    """`size` train ids, none in `exclude` (e.g. the demos' sources), drawn deterministically for `seed`."""
    banned = set(exclude)
    pool = sorted(i for i in train_ids if i not in banned)
    return sorted(random.Random(seed).sample(pool, min(size, len(pool))))


def write_files(root: Path, files: Mapping[str, str]) -> None:
    """Write each workspace-relative file (a candidate's texts) under `root`, atomically."""
    for rel, text in files.items():
        atomic_write(root / rel, text)


def copy_with_files(workspace: Path, target: Path, files: Mapping[str, str]) -> None:
    """Copy the workspace to `target` (without run records, git or bytecode) and write `files` in the copy."""
    copy_tree(workspace, target, ignore=shutil.ignore_patterns(RECORDS_DIR, ".git", "__pycache__"))
    write_files(target, files)


def stage(workspace: Path, scratch: Path, candidate: CandidateEdit) -> Path:
    """A fresh copy of the workspace with the candidate's files written in it."""
    target = scratch / "candidates" / candidate.name
    shutil.rmtree(target, ignore_errors=True)
    copy_with_files(workspace, target, candidate.files)
    return target


def search(trial: TrialRunner, workspace: Path, scratch: Path, candidates: Sequence[CandidateEdit],
           task_ids: list[str], min_gain: float = 0.0, curtail: bool = False) -> SearchResult:
    """Score the working copy and each candidate on `task_ids`; the result names the winner, if any. With
    `curtail` (and visible grades), a candidate stops being scored once it can no longer be picked."""
    current = trial(task_ids)
    result = SearchResult(task_ids, current.mean_score, cost={"current": current.cost_per_task()})
    curtail = curtail and not trial.hide_feedback and len(set(task_ids)) == len(task_ids)
    for candidate in candidates:
        stop = out_of_the_running(result, min_gain, trial.benchmark.score_range) if curtail else None
        report = trial(task_ids, workspace=stage(workspace, scratch, candidate), stop=stop)
        result.cost[candidate.name] = report.cost_per_task()
        if report.unscored:
            result.stopped[candidate.name] = len(report.results)
        else:
            result.scores[candidate.name] = report.mean_score
    result.best = pick_best(result.incumbent, result.scores, min_gain)
    return result


def out_of_the_running(result: SearchResult, min_gain: float, score_range: tuple[float, float]) -> StopRule:
    """Stop scoring the next candidate once `pick_best` could not pick it even with every task left at the top of
    `score_range`. The bound is the trial's own mean (same order, same sums), so it is exact in floating point; a
    score outside `score_range` turns the rule off."""
    low, high = score_range
    leader = pick_best(result.incumbent, result.scores, min_gain)
    bar = None if leader is None else result.scores[leader]

    def stop(scored: dict[str, list[float]], unscored: list[str]) -> bool:
        if not all(low <= v <= high for values in scored.values() for v in values):
            return False
        upper = trial_mean([scored[t][0] if t in scored else high for t in result.task_ids])
        return not (upper - result.incumbent > min_gain and (bar is None or upper > bar))

    return stop
