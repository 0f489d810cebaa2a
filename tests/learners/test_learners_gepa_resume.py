"""kill -9 in the middle of a GEPA search, then rerun: the pool is intact and no candidate is scored twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def run_script(workspace: Path, log: Path, crash_at: int | None, merge: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "SOLVE_LOG": str(log),
           "GEPA_MERGE": "1" if merge else "0"}
    env.pop("CRASH_AT_SOLVE", None)
    if crash_at:
        env["CRASH_AT_SOLVE"] = str(crash_at)
    return subprocess.run([sys.executable, str(HERE / "gepa_crash_run.py"), str(workspace)], env=env,
                          capture_output=True, text=True, timeout=300)


def outcome(workspace: Path, log: Path) -> dict:
    state = json.loads((workspace / "evolution" / "engine" / "state" / "gepa.json").read_text())
    val = set(state["val_ids"])
    solves = [tuple(line.split()) for line in log.read_text().splitlines()]
    return {
        "pool": [c["files"] for c in state["candidates"]],
        "merge": state["merge"],
        "solves": solves,
        "decisions": [e["decision"] for e in state["log"]],
        "val_solves": Counter(s for s in solves if s[1] in val),
        "prompt": (workspace / "prompts" / "system.md").read_text(),
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("reference")
    assert run_script(root / "ws", root / "solves.log", None).returncode == 0
    return outcome(root / "ws", root / "solves.log")


# Solves: 1-4 baseline holdout; cycle 1: 5-8 batch, 9-12 seed on validation, 13-15 child on its minibatch,
# 16-19 child on validation, 20-23 gate; cycle 2 starts at 24.
@pytest.mark.parametrize("crash_at", [10, 14, 17, 21, 30])
def test_kill_9_mid_search_then_rerun_keeps_the_pool_and_scores_nothing_twice(
    tmp_path: Path, reference: dict, crash_at: int
) -> None:
    workspace, log = tmp_path / "ws", tmp_path / "solves.log"
    crashed = run_script(workspace, log, crash_at)
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr
    in_flight = tuple(log.read_text().splitlines()[-1].split())   # killed mid-solve: never graded, runs again
    finished = run_script(workspace, log, None)
    assert finished.returncode == 0, finished.stderr
    assert len(reference["pool"]) == 3
    same_search(outcome(workspace, log), reference, in_flight)


def same_search(got: dict, reference: dict, in_flight: tuple[str, ...]) -> None:
    """The rerun ends with the uninterrupted run's pool, decisions and workspace, and paid no score twice."""
    assert got["pool"] == reference["pool"] and got["decisions"] == reference["decisions"]
    assert got["prompt"] == reference["prompt"] and got["merge"] == reference["merge"]
    got["val_solves"][in_flight] -= 1
    twice = {pair: n for pair, n in got["val_solves"].items() if n > 1}
    assert not twice, f"validation tasks run more than once for the same candidate: {twice}"
    assert +got["val_solves"] == reference["val_solves"]


@pytest.fixture(scope="module")
def merge_reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("merge-reference")
    assert run_script(root / "ws", root / "solves.log", None, merge=True).returncode == 0
    return outcome(root / "ws", root / "solves.log")


# Offsets from the merged child's first solve: inside its validation subsample, the rest of validation, the gate.
@pytest.mark.parametrize("offset", [1, 5, 7])
def test_kill_9_mid_merge_then_rerun_keeps_the_merge_and_scores_nothing_twice(
    tmp_path: Path, merge_reference: dict, offset: int
) -> None:
    assert merge_reference["decisions"][2].startswith("kept merge")
    hashes = list(dict.fromkeys(h for h, _ in merge_reference["solves"]))   # seed, child 1, child 2, merged
    first_merged = next(n for n, (h, _) in enumerate(merge_reference["solves"], start=1) if h == hashes[3])
    workspace, log = tmp_path / "ws", tmp_path / "solves.log"
    crashed = run_script(workspace, log, first_merged + offset, merge=True)
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr
    in_flight = tuple(log.read_text().splitlines()[-1].split())
    finished = run_script(workspace, log, None, merge=True)
    assert finished.returncode == 0, finished.stderr
    same_search(outcome(workspace, log), merge_reference, in_flight)
