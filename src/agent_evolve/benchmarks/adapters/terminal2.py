"""Terminal-Bench 2.0: hard terminal tasks; the agent acts in each task's container, the task's tests decide."""

from __future__ import annotations

from agent_evolve.benchmarks.adapters.dirbench import TaskDirBenchmark

ENV_VAR = "AGENT_EVOLVE_TERMINAL2_DATA"


class Terminal2Benchmark(TaskDirBenchmark):
    """Task folders (Harbor task.toml + instruction.md, or Terminal-Bench 1 task.yaml), closed loop; `backend`:
    `auto`, `local` or `docker` (see `adapters.dirbench`)."""

    name = "terminal2"
    env_var = ENV_VAR
    source_hint = ("Get the tasks with `git clone https://github.com/laude-institute/terminal-bench-2` "
                   "and pass that folder.")
