"""A model-free agent, benchmark and engine for lift tests; the agent logs every solve and can be killed mid-run."""

from __future__ import annotations

import itertools
import os
import signal
from pathlib import Path

import agent_evolve as ae
from agent_evolve.types import Feedback, StepResult, Task, Trajectory

MANIFEST = """name: keyword
version: 0.1.0
contract_version: "1.0"
agent: {type: custom, entrypoint: lift_fakes.KeywordAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""
_TEST_SOLVES = itertools.count(1)


def make_workspace(path: Path) -> Path:
    (path / "prompts").mkdir(parents=True)
    (path / "prompts" / "system.md").write_text("baseline\n")
    (path / "manifest.yaml").write_text(MANIFEST)
    return path


class KeywordAgent(ae.BaseAgent):
    """Solves a task when its keyword is in the system prompt. Logs `workspace<TAB>task` to $SOLVE_LOG and
    kills its own process at the Nth solve of a task whose id starts with $CRASH_TASKS (default "s", the test
    tasks) in a workspace whose path contains $CRASH_IN (N = $CRASH_AT)."""

    def solve(self, task: Task) -> Trajectory:
        where = str(self.workspace.path)
        if task.id.startswith(os.environ.get("CRASH_TASKS", "s")) and os.environ.get("CRASH_IN", "\0") in where:
            if next(_TEST_SOLVES) == int(os.environ.get("CRASH_AT", "0")):
                os.kill(os.getpid(), signal.SIGKILL)
        if os.environ.get("SOLVE_LOG"):
            with open(os.environ["SOLVE_LOG"], "a") as log:
                log.write(f"{where}\t{task.id}\n")
        keyword = task.metadata["keyword"]
        return Trajectory(task.id, keyword if keyword in self.system_prompt else "?")


class KeywordBenchmark(ae.BenchmarkAdapter):
    """Train tasks t0..t39 and test tasks s0..s{n-1}; keywords k0 and k1 alternate; the answer is the keyword."""

    name = "keywords"

    def __init__(self, test: int = 120) -> None:
        self.test = test

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        prefix, count = ("t", 40) if split == "train" else ("s", self.test)
        tasks = [Task(f"{prefix}{i}", f"task {i}", {"keyword": f"k{i % 2}"}) for i in range(count)]
        return tasks[:limit]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == task.metadata["keyword"]
        return Feedback(ok, float(ok))


class KeywordEngine(ae.EvolutionEngine):
    """Writes the keyword k0 (and the run's seed) into the prompt: half the tasks become solvable."""

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        workspace.write_prompt(f"baseline k0, seed {self.context.config.seed}\n")
        return StepResult(mutated=True, summary="k0")


class BothKeywordsEngine(ae.EvolutionEngine):
    """Writes both keywords (and the run's seed) into the prompt: every task becomes solvable."""

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        workspace.write_prompt(f"baseline k0 k1, seed {self.context.config.seed}\n")
        return StepResult(mutated=True, summary="k0 k1")


class NoteEngine(ae.EvolutionEngine):
    """Writes a note the agent never reads: the workspace changes, no request the agent makes does."""

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        (Path(workspace.path) / "prompts" / "notes.md").write_text(f"seed {self.context.config.seed}\n")
        return StepResult(mutated=True, summary="note")
