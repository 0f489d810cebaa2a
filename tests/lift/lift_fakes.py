"""A model-free agent, benchmark and engine for lift tests; the agent logs every solve and can be killed mid-run."""

from __future__ import annotations

import hashlib
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


SAMPLING_MANIFEST = """name: sampling
version: 0.1.0
contract_version: "1.0"
agent: {type: custom, entrypoint: lift_fakes.SamplingAgent}
evolvable_layers: [prompts, skills, memory]
reload_strategy: hot
"""


def make_sampling_workspace(path: Path) -> Path:
    make_workspace(path)
    (path / "manifest.yaml").write_text(SAMPLING_MANIFEST)
    return path


class SamplingAgent(ae.BaseAgent):
    """A sampling agent without a model: it knows a task's keyword when the prompt holds it, and then answers
    right unless its sampling seed (its client's) makes it slip on that task (one task in four). Each answer
    reports 7 tokens per word of the system prompt, plus 3. Logs `seed<TAB>task` to $SEED_LOG."""

    def __init__(self, workspace_dir: str | Path, llm: object = None) -> None:
        super().__init__(workspace_dir)
        self.llm = llm

    def solve(self, task: Task) -> Trajectory:
        seed = int(getattr(self.llm, "seed", 0))
        if os.environ.get("SEED_LOG"):
            with open(os.environ["SEED_LOG"], "a") as log:
                log.write(f"{seed}\t{task.id}\n")
        keyword = task.metadata["keyword"]
        slips = hashlib.sha256(f"{seed}:{task.id}".encode()).digest()[0] % 4 == 0
        right = keyword in self.system_prompt and not slips
        tokens = 7 * len(self.system_prompt.split()) + 3
        usage = {"input_tokens": tokens - 1, "output_tokens": 1}
        return Trajectory(task.id, keyword if right else "?", [{"type": "answer", "usage": usage}])


class SameEditEngine(ae.EvolutionEngine):
    """Writes the keyword k0 whatever the seed: every seed ends with the same workspace content."""

    def step(self, workspace, observations, history, trial=None) -> StepResult:
        workspace.write_prompt("baseline k0\n")
        return StepResult(mutated=True, summary="k0")
