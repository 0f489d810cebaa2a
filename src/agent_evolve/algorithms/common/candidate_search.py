"""Search with measurement: several candidate edits scored on the same train tasks; only the best may be kept.

Each candidate is a set of whole-file writes inside the evolvable layers. It is staged in a copy of the
workspace under the engine's scratch folder and scored there by the trial runner (train tasks only); the
working copy is scored on the same tasks. The winner must beat the working copy; when every candidate loses or
ties, nothing is written. With curtailment, a candidate's scoring stops once even winning every task left could
not make it the winner (exact: the same winner as scoring every task). Each candidate's model calls and tokens
per task are kept beside the working copy's, so a technique's cost is reported next to its gain.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent_evolve.algorithms.common.edits import RECORD_DIRS
from agent_evolve.contract.paths import atomic_write
from agent_evolve.contract.regular_files import copy_tree
from agent_evolve.engine.curtailment import StopRule
from agent_evolve.engine.trial import TrialRunner, trial_mean


@dataclass(frozen=True)
class CandidateEdit:
    """A named edit: workspace-relative paths and their new contents."""

    name: str
    files: Mapping[str, str]
    summary: str = ""


@dataclass
class SearchResult:
    """The trial scores of the working copy and of every candidate, and the winner (None: keep the working copy).

    `stopped` maps a candidate whose scoring was curtailed to the tasks it was scored on; `cost` maps "current"
    and each candidate to its model calls and tokens per task.
    """

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


def stage(workspace: Path, scratch: Path, candidate: CandidateEdit) -> Path:
    """A copy of the workspace (without run records and git) with the candidate's files written in it."""
    target = scratch / "candidates" / candidate.name
    shutil.rmtree(target, ignore_errors=True)
    copy_tree(workspace, target, ignore=shutil.ignore_patterns(*RECORD_DIRS, "__pycache__"))
    write_files(target, candidate.files)
    return target


def search(
    trial: TrialRunner,
    workspace: Path,
    scratch: Path,
    candidates: Sequence[CandidateEdit],
    task_ids: list[str],
    min_gain: float = 0.0,
    curtail: bool = False,
) -> SearchResult:
    """Score the working copy and each candidate on `task_ids`; the result names the winner, if any.

    With `curtail` (and visible grades), a candidate stops being scored once it can no longer be picked.
    """
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
    `score_range`: it would not beat the working copy by more than `min_gain`, or not the best candidate before it.

    The bound is computed as the trial's own mean (same order, same sums), so it is exact in floating point; a
    score outside `score_range` turns the rule off.
    """
    low, high = score_range
    leader = pick_best(result.incumbent, result.scores, min_gain)
    bar = None if leader is None else result.scores[leader]

    def stop(scored: dict[str, list[float]], unscored: list[str]) -> bool:
        if not all(low <= v <= high for values in scored.values() for v in values):
            return False
        upper = trial_mean([scored[t][0] if t in scored else high for t in result.task_ids])
        return not (upper - result.incumbent > min_gain and (bar is None or upper > bar))

    return stop
