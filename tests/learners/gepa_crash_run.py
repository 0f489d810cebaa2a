"""Run 3 GEPA cycles on a workspace; the kill -9 test runs this as a subprocess with CRASH_AT_SOLVE set or not."""

from __future__ import annotations

import sys
from pathlib import Path

from learner_fakes import KeywordAgent, KeywordBenchmark, add_keyword, make_workspace

import agent_evolve as ae
from agent_evolve.algorithms.gepa import GepaEngine
from agent_evolve.testing import ScriptedLLM

if __name__ == "__main__":
    workspace = Path(sys.argv[1])
    if not workspace.exists():
        make_workspace(workspace)
    config = ae.EvolveConfig(batch_size=4, holdout_ratio=0.2, val_ratio=0.25, concurrency=1)
    engine = GepaEngine(llm=ScriptedLLM([add_keyword] * 10))
    result = ae.Evolver(KeywordAgent(workspace), KeywordBenchmark(), config, engine).run(3)
    print("completed", result.cycles_completed)
