"""The test-view ledger: every scoring of test tasks (`eval` on a test split too) is a hash-chained JSONL row in the
experiment folder and a per-user store of its split, so a rewritten row breaks the chain and a reserve avoids it."""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.jsonl import repair_tail
from agent_evolve.engine.solving import graded_only
from agent_evolve.errors import ConfigError
from agent_evolve.io.safe_json import parse_json
from agent_evolve.lift.scoring import workspace_key
from agent_evolve.types import Observation

LEDGER_FILE = "test-views.jsonl"
VIEWS_ENV = "AGENT_EVOLVE_TEST_VIEWS"  # the per-user store's folder (default ~/.cache/agent-evolve/test-views)
GENESIS = "0" * 64
CLAIM = "claim"  # the `who` of a row that holds a plan's test tasks from its first scoring on (it has no score)


def ids_hash(task_ids: Iterable[str]) -> str:
    """A short content hash of a set of task ids (their order does not matter)."""
    return hashlib.sha256("\n".join(sorted(set(task_ids))).encode()).hexdigest()[:16]


def user_store(split_hash: str) -> Path:
    """The per-user ledger of the test split whose ids hash to `split_hash`."""
    root = os.environ.get(VIEWS_ENV) or Path.home() / ".cache" / "agent-evolve" / "test-views"
    return Path(root) / f"{split_hash}.jsonl"


def row_hash(row: Mapping[str, Any]) -> str:
    """The sha256 of a row's canonical JSON, its own `hash` left out."""
    body = {k: v for k, v in row.items() if k != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Every row of a ledger (none when it does not exist); a line that is not a JSON object is a ConfigError."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); the ledger was damaged") from None
    rows = [(n, parse_json(line, f"{path}: row {n}", ConfigError))
            for n, line in enumerate(lines, 1) if line.strip()]
    bad = next((n for n, row in rows if not isinstance(row, dict)), None)
    if bad is not None:
        raise ConfigError(f"{path}: row {bad} is not a JSON object")
    return [row for _, row in rows]


def scoring(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """What names a scoring in a ledger row (a resumed or re-reported plan appends no second row for it)."""
    return row.get("plan"), row.get("who"), row.get("draw"), row.get("tasks")


def first_bad_row(rows: Sequence[Mapping[str, Any]]) -> tuple[int, str] | None:
    """The 1-based number of the first row whose hash or link to the row before it is wrong, and why; None when
    the chain holds."""
    previous = GENESIS
    for number, row in enumerate(rows, 1):
        if row.get("prev") != previous:
            return number, "its link to the row before it does not match (a row was removed, added or reordered)"
        if row.get("hash") != row_hash(row):
            return number, "its content does not match its hash (the row was rewritten)"
        previous = str(row["hash"])
    return None


@dataclass(frozen=True)
class View:
    """One scoring of test tasks: which plan, who, which workspace content and draw, the tasks and the score (None
    in a claim, written before the scoring starts)."""

    plan: str
    who: str
    workspace: str
    draw: int
    task_ids: tuple[str, ...]
    score: float | None
    split: str = ""  # the hash of the benchmark's whole test split


def append_view(path: Path, view: View) -> bool:
    """Append `view` to the ledger at `path`, chained to its last row, unless it records that scoring already (True
    when added); appends are locked, a half-written last line is cut, a broken chain refused."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as sink:
        fcntl.flock(sink, fcntl.LOCK_EX)
        repair_tail(path)
        rows = read_rows(path)
        if any(scoring(row) == (view.plan, view.who, view.draw, ids_hash(view.task_ids)) for row in rows):
            return False
        bad = first_bad_row(rows)
        if bad is not None:
            raise ConfigError(f"{path}: row {bad[0]} is broken ({bad[1]}); the ledger cannot be extended")
        row: dict[str, Any] = {
            "prev": rows[-1]["hash"] if rows else GENESIS, "plan": view.plan, "who": view.who,
            "workspace": view.workspace, "draw": view.draw, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "split": view.split, "tasks": ids_hash(view.task_ids), "task_ids": sorted(view.task_ids),
            "score": None if view.score is None else round(view.score, 6)}
        row["hash"] = row_hash(row)
        sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    return True


@dataclass(frozen=True)
class ViewLedgers:
    """The ledgers of one experiment: its folder's, the per-user store of its benchmark's test split (whose hash
    is `split`), and those of the folders next to it (committed experiments count on any machine)."""

    folder: Path
    store: Path
    split: str = ""

    def record(self, view: View) -> None:
        """Append the scoring to the folder's ledger and the store (each skips it when it holds it already)."""
        view = dataclasses.replace(view, split=self.split)
        append_view(self.folder, view)
        append_view(self.store, view)

    def claim(self, plan: str, task_ids: Sequence[str]) -> None:
        """Hold `plan`'s test tasks before its first scoring, so a run stopped mid-scoring (which completes no row)
        still counts as having looked and `--test-reserve` never hands its tasks out again."""
        if not any(row.get("plan") == plan for row in [*read_rows(self.folder), *read_rows(self.store)]):
            self.record(View(plan, CLAIM, "", 0, tuple(task_ids), None))

    def neighbours(self) -> list[dict[str, Any]]:
        """The rows of the ledgers in the folders next to this one that scored the same test split."""
        paths = sorted(p for p in self.folder.parent.parent.glob(f"*/{self.folder.name}") if p != self.folder)
        return [row for path in paths for row in read_rows(path) if row.get("split") == self.split]

    def rows(self) -> list[dict[str, Any]]:
        """Every row of every ledger, each scoring once."""
        seen: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in [*read_rows(self.store), *read_rows(self.folder), *self.neighbours()]:
            seen.setdefault(scoring(row), row)
        return sorted(seen.values(), key=lambda row: str(row.get("time", "")))


def missing_scorings(folder: Iterable[Mapping[str, Any]], store: Iterable[Mapping[str, Any]],
                     plan_id: str) -> list[str]:
    """The scorings of `plan_id` that the per-user store records and the folder's ledger lacks: rows cut from the end
    of the folder's ledger, which its own chain cannot show."""
    held = {scoring(r) for r in folder}
    return [f"{r.get('who')} draw {r.get('draw')}" for r in store
            if r.get("plan") == plan_id and scoring(r) not in held]


def reserve(split_ids: Sequence[str], rows: Iterable[Mapping[str, Any]], size: int, where: str) -> list[str]:
    """The first `size` ids of the test split (in its order) that no plan in the ledger has scored; a ConfigError
    when fewer are left."""
    seen = {str(t) for row in rows for t in row.get("task_ids", [])}
    fresh = [t for t in split_ids if t not in seen]
    if len(fresh) < size:
        raise ConfigError(f"--test-reserve {size}: only {len(fresh)} of the {len(split_ids)} test tasks were never "
                          f"scored by an earlier plan ({len(seen)} were, per {where}); the reserve is exhausted")
    return fresh[:size]


def earlier_plans(rows: Iterable[Mapping[str, Any]], test_ids: Iterable[str], plan_id: str) -> dict[str, Any]:
    """The plans that scored (or claimed) any of `test_ids`: how many (this one included) and, for each other plan,
    when it first did, how many of these tasks, and the mean score of each completed scoring."""
    wanted = set(test_ids)
    plans: dict[str, dict[str, Any]] = {}
    for row in rows:
        overlap = wanted & {str(t) for t in row.get("task_ids", [])}
        if not overlap:
            continue
        entry = plans.setdefault(str(row.get("plan")), {"plan": str(row.get("plan")), "first": row.get("time"),
                                                         "tasks": 0, "scores": {}})
        entry["tasks"] = max(entry["tasks"], len(overlap))
        if row.get("who") != CLAIM:
            entry["scores"][f"{row.get('who')} draw {row.get('draw')}"] = row.get("score")
    others = [entry for key, entry in plans.items() if key != plan_id]
    return {"plans": len(others) + 1, "earlier": others}


def record_eval(benchmark: BenchmarkAdapter, workspace: Path, config: EvolveConfig,
                observations: list[Observation]) -> Path | None:
    """Append the eval's scoring of test tasks to its split's per-user ledger (as plan ``eval-<hash>`` of the
    workspace content and config; each rerun a draw of its own); the ledger's path, None when nothing was graded."""
    graded = graded_only(observations)
    if not graded:
        return None
    key = workspace_key(workspace)
    settings = hashlib.sha256(json.dumps(config.to_dict(), sort_keys=True, default=str).encode()).hexdigest()[:8]
    plan = f"eval-{key}-{settings}"
    split = ids_hash(t.id for t in benchmark.get_tasks("test", limit=None))
    store = user_store(split)
    draw = sum(1 for row in read_rows(store) if row.get("plan") == plan)
    score = sum(o.feedback.score for o in graded) / len(graded)
    append_view(store, View(plan, "eval", key, draw, tuple(o.task.id for o in graded), score, split))
    return store
