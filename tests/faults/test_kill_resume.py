"""SIGKILL at random instants across a small evolution, each followed by a rerun that must finish exactly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
KILLS = int(os.environ.get("AGENT_EVOLVE_KILLS", "100"))


def test_every_rerun_after_a_random_kill_finishes_equal_to_an_uncrashed_run(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(HERE / "kill_loop.py"), str(tmp_path), str(KILLS), "20261201"],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout)
    reference, trials = report["reference"], report["trials"]
    assert reference["cycles"] == [1, 2, 3] and reference["steps"] == "1\n2\n3\n"
    assert reference["outcomes"] == ["accepted", "rejected", "accepted"]
    assert len(reference["observed"]) == len(set(reference["observed"])) == 9
    assert len(trials) == KILLS
    assert sum(t["killed"] for t in trials) >= 0.95 * KILLS
    failed = [t for t in trials if t["rerun"] != 0 or not t["same"] or t["problems"]]
    assert not failed, json.dumps(failed[:5], indent=1) + proc.stderr[-4000:]
