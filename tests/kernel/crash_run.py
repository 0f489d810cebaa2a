"""Run 3 cycles on a workspace; the crash-resume test runs this as a subprocess, with CRASH_AT set or not."""

from __future__ import annotations

import sys
from pathlib import Path

from kernel_fakes import KeywordAgent, KeywordBenchmark, PlanEngine, make_workspace

import agent_evolve as ae

PLAN = [("prompt", "k0"), ("prompt", "k0 k1"), ("memory", "note")]

if __name__ == "__main__":
    workspace = Path(sys.argv[1])
    if not workspace.exists():
        make_workspace(workspace)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.3, concurrency=1)
    result = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, PlanEngine(PLAN)).run(3)
    print("completed", result.cycles_completed)
