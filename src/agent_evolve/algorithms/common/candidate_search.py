"""Search with measurement: several candidate edits scored on the same train tasks; only the best may be kept.

Each candidate is a set of whole-file writes inside the evolvable layers. It is staged in a copy of the
workspace under the engine's scratch folder and scored there by the trial runner (train tasks only); the
working copy is scored on the same tasks. The winner must beat the working copy; when every candidate loses or
ties, nothing is written.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evolve.algorithms.common.edits import RECORD_DIRS
from agent_evolve.contract.regular_files import copy_tree
from agent_evolve.engine.trial import TrialRunner


@dataclass(frozen=True)
class Candidate:
    """A named edit: workspace-relative paths and their new contents."""

    name: str
    files: Mapping[str, str]
    summary: str = ""


@dataclass
class SearchResult:
    """The trial scores of the working copy and of every candidate, and the winner (None: keep the working copy)."""

    task_ids: list[str]
    incumbent: float
    scores: dict[str, float] = field(default_factory=dict)
    best: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"task_ids": self.task_ids, "incumbent": self.incumbent, "scores": self.scores, "best": self.best}


def pick_best(incumbent: float, scores: Mapping[str, float], min_gain: float = 0.0) -> str | None:
    """The highest-scoring candidate that beats `incumbent` by more than `min_gain`; the first one on ties."""
    best = None
    for name, score in scores.items():
        if score - incumbent > min_gain and (best is None or score > scores[best]):
            best = name
    return best


def trial_ids(train_ids: Sequence[str], exclude: Sequence[str], size: int, seed: str) -> list[str]:
    """`size` train ids, none in `exclude` (e.g. the demos' sources), drawn deterministically for `seed`."""
    banned = set(exclude)
    pool = sorted(i for i in train_ids if i not in banned)
    return sorted(random.Random(seed).sample(pool, min(size, len(pool))))


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def stage(workspace: Path, scratch: Path, candidate: Candidate) -> Path:
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
    candidates: Sequence[Candidate],
    task_ids: list[str],
    min_gain: float = 0.0,
) -> SearchResult:
    """Score the working copy and each candidate on `task_ids`; the result names the winner, if any."""
    result = SearchResult(task_ids, trial(task_ids).mean_score)
    for candidate in candidates:
        result.scores[candidate.name] = trial(task_ids, workspace=stage(workspace, scratch, candidate)).mean_score
    result.best = pick_best(result.incumbent, result.scores, min_gain)
    return result
