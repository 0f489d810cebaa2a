"""Does a program prompt get programs on tasks that name their own answer format ("Answer with a name.")?

The embedded model answers N reasoning-mini train tasks (shuffled with seed 3) from a copy of the `reasoning` seed
workspace, with or without `prompts/program.md`, and prints per task: id, solved, whether a program ran, the
output's start. Train tasks only; the test split is not read.

    cp -r src/agent_evolve/seed_workspaces/reasoning /tmp/rws
    PYTHONPATH=src python experiments/probes/program_closing/probe.py 18 program /tmp/rws   # or: 18 text /tmp/rws
    PYTHONPATH=src python experiments/probes/program_closing/probe.py 18 program /tmp/rws 18   # the next 18
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import agent_evolve as ae
from agent_evolve.algorithms.common.techniques import ANY_KIND_PROGRAM_INSTRUCTION
from agent_evolve.benchmarks.suites.reasoning_mini import ReasoningMiniBenchmark


def main(count: int, mode: str, workspace: Path, offset: int = 0) -> None:
    benchmark = ReasoningMiniBenchmark()
    tasks = benchmark.get_tasks("train", limit=None)
    random.Random(3).shuffle(tasks)
    program = workspace / "prompts" / "program.md"
    if mode == "program":
        program.write_text(ANY_KIND_PROGRAM_INSTRUCTION)
    else:
        program.unlink(missing_ok=True)
    agent = ae.load_agent(workspace)
    solved = programs = 0
    for task in tasks[offset:offset + count]:
        trajectory = agent.solve(task)
        success = benchmark.evaluate(task, trajectory).success
        ran = any(s.get("type") == "program" and s["ran"] for s in trajectory.steps)
        solved, programs = solved + success, programs + ran
        print(task.id, success, ran, repr(trajectory.output[:60]), flush=True)
    print(mode, "solved", solved, "of", count, "programs", programs)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
