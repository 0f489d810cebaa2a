"""What the probes share: resumable per-task rows in `<out>/<arm>.jsonl`, and an arm's paired table row."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agent_evolve.stats.bootstrap import paired_bootstrap_ci
from agent_evolve.stats.sign_test import sign_test_p
from agent_evolve.types import Task

TABLE_HEAD = "| arm | solved | lift | 95% CI | wins | losses | sign-test p | s per solve |\n|---|---|---|---|---|---|---|---|"


def solve_rows(store: Path, tasks: list[Task], solve: Callable[[Task], dict]) -> list[dict]:
    """Each task's row, solving (two at a time) only the tasks `store` lacks; a row is appended, with its seconds,
    as soon as it is made, so a killed probe resumes."""
    done = {r["task_id"]: r for r in map(json.loads, store.open())} if store.exists() else {}

    def row(task: Task) -> dict:
        if task.id in done:
            return done[task.id]
        start = time.time()
        made = {"task_id": task.id, **solve(task), "s": round(time.time() - start, 1)}
        with store.open("a") as sink:
            sink.write(json.dumps(made) + "\n")
        return made

    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(row, tasks))


def print_row(arm: str, rows: list[dict], before: dict[str, float]) -> None:
    """The arm's table row: solved, lift over the baseline task by task, its CI, wins, losses, p, seconds."""
    diffs = [r["score"] - before[r["task_id"]] for r in rows]
    wins, losses = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    low, high = paired_bootstrap_ci(diffs)
    print(f"| {arm} | {sum(r['score'] for r in rows):.0f}/{len(rows)} | {sum(diffs) / len(diffs):+.3f} "
          f"| [{low:+.3f}, {high:+.3f}] | {wins} | {losses} | {sign_test_p(wins, losses):.2f} "
          f"| {sum(r['s'] for r in rows) / len(rows):.1f} |", flush=True)
