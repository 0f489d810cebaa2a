"""terminal-mini: eleven shipped offline terminal tasks in Terminal-Bench 2's (Harbor) folder layout, run in the
local backend by default (`terminal-mini:docker` builds each task's image)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from agent_evolve.benchmarks.adapters.dirbench import TaskDirBenchmark

DATA_DIR = Path(str(files("agent_evolve.benchmarks.suites").joinpath("data", "terminal_mini")))


class TerminalMiniBenchmark(TaskDirBenchmark):
    """The shipped terminal tasks (`backend`: local by default, docker or auto)."""

    name = "terminal-mini"
    source_hint = "The suite ships with the package (agent_evolve/benchmarks/suites/data/terminal_mini)."

    def __init__(self, backend: str = "local", seed: int = 0, test_fraction: float = 0.3, *,
                 data_path: str | None = None, build_timeout: float = 1800.0) -> None:
        super().__init__(data_path or str(DATA_DIR), seed, test_fraction, backend=backend, build_timeout=build_timeout)
