"""Run 3 GEPA cycles on a workspace; the kill -9 tests run this as a subprocess with CRASH_AT_SOLVE set or not.
With GEPA_MERGE=1 it runs the merge scenario (two components, siblings, a kept merge in cycle 3)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from learner_fakes import (
    AlternatingBenchmark,
    KeywordAgent,
    KeywordBenchmark,
    add_keyword,
    add_skill,
    keyword_per_component,
    make_workspace,
)

import agent_evolve as ae
from agent_evolve.algorithms.gepa import GepaEngine
from agent_evolve.testing import ScriptedLLM

if __name__ == "__main__":
    workspace = Path(sys.argv[1])
    merge = os.environ.get("GEPA_MERGE") == "1"
    if not workspace.exists():
        make_workspace(workspace, prompt="base\n" if merge else "start\n")
        if merge:
            add_skill(workspace)
    if merge:
        config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.2, val_ratio=0.25, concurrency=1, seed=1)
        engine = GepaEngine(llm=ScriptedLLM([keyword_per_component] * 10), use_merge=True,
                            candidate_selection="epsilon_greedy", epsilon=1.0)
        benchmark: ae.BenchmarkAdapter = AlternatingBenchmark(n=30)
    else:
        config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.2, val_ratio=0.25, concurrency=1)
        engine = GepaEngine(llm=ScriptedLLM([add_keyword] * 10))
        benchmark = KeywordBenchmark()
    result = ae.Evolver(KeywordAgent(workspace), benchmark, config, engine).run(3)
    print("completed", result.cycles_completed)
