"""Shared pieces of the loop benchmarks: an instant (or fixed-latency) agent, counters, our loop and a minimal one.

The minimal loop has the shape of the original A-Evolve loop and does the same work ours must: reload the agent,
solve the batch, write its observations (one JSONL file, as A-Evolve's observer did), let the engine edit,
`git add -A`, `git commit`, `git tag`, append a history line. Nothing else: no journal, no diff, no gate, no
resets, no fsync. Our loop with `holdout_ratio=0` still runs a train-only gate (the batch solved again on the
candidate); "gate off" means its time is measured (around `GateRun.evaluate`) and taken out of our cycle.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import agent_evolve as ae
from agent_evolve.engine.gate_evaluation import GateRun
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.types import Feedback, Observation, StepResult, Task, Trajectory

SKILL = "---\nname: {name}\ndescription: \"TRIGGER when: task {i}. DO NOT TRIGGER: other tasks.\"\n---\n\nStep {i}: check.\n"


class LatencyAgent(ae.BaseAgent):
    """Answers every task correctly after `latency` seconds (0: instantly)."""

    latency = 0.0

    def solve(self, task: Task) -> Trajectory:
        if self.latency:
            time.sleep(self.latency)
        return Trajectory(task_id=task.id, output=task.metadata["answer"])


class CountingBenchmark(ae.BenchmarkAdapter):
    """`n` train tasks whose answer is their number."""

    def __init__(self, n: int):
        self.n = n

    def get_tasks(self, split: str = "train", limit: int = 10) -> list[Task]:
        return [Task(id=f"t{i}", input=f"task {i}", metadata={"answer": str(i)}) for i in range(min(self.n, limit))]

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        ok = trajectory.output == task.metadata["answer"]
        return Feedback(success=ok, score=float(ok))


class PromptLineEngine(ae.EvolutionEngine):
    """Appends one line to the system prompt each cycle: the smallest real mutation."""

    def step(self, workspace, observations, history, trial=None) -> StepResult:  # noqa: ANN001 - the engine API
        workspace.write_prompt(workspace.read_prompt() + f"cycle {self.context.cycle}\n")
        return StepResult(mutated=True, summary="one prompt line")


def make_workspace(path: Path, skills: int) -> Path:
    (path / "prompts").mkdir(parents=True)
    (path / "memory").mkdir()
    (path / "prompts" / "system.md").write_text("Answer with the task number.\n")
    for i in range(skills):
        folder = path / "skills" / f"skill-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(SKILL.format(name=f"skill-{i}", i=i))
    return path


@dataclass
class Counts:
    """Git subprocesses and fsyncs seen, with the seconds spent in them and in the train-only gate."""

    git: int = 0
    fsyncs: int = 0
    fsync_seconds: float = 0.0
    git_seconds: float = 0.0
    gate_seconds: float = 0.0

    def minus(self, other: Counts) -> Counts:
        return Counts(
            self.git - other.git,
            self.fsyncs - other.fsyncs,
            self.fsync_seconds - other.fsync_seconds,
            self.git_seconds - other.git_seconds,
            self.gate_seconds - other.gate_seconds,
        )

    def copy(self) -> Counts:
        return Counts(self.git, self.fsyncs, self.fsync_seconds, self.git_seconds, self.gate_seconds)


@contextmanager
def counting() -> Iterator[Counts]:
    """Count git subprocesses and time fsyncs and gate evaluations while the block runs."""
    counts = Counts()
    real_run, real_fsync, real_evaluate = subprocess.run, os.fsync, GateRun.evaluate

    def run(args, *rest, **kwargs):  # noqa: ANN001, ANN002, ANN003 - mirrors subprocess.run
        if not (args and args[0] == "git"):
            return real_run(args, *rest, **kwargs)
        started = time.perf_counter()
        try:
            return real_run(args, *rest, **kwargs)
        finally:
            counts.git += 1
            counts.git_seconds += time.perf_counter() - started

    def fsync(fd: int) -> None:
        started = time.perf_counter()
        real_fsync(fd)
        counts.fsyncs += 1
        counts.fsync_seconds += time.perf_counter() - started

    def evaluate(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - mirrors GateRun.evaluate
        started = time.perf_counter()
        try:
            return real_evaluate(self, *args, **kwargs)
        finally:
            counts.gate_seconds += time.perf_counter() - started

    subprocess.run, os.fsync, GateRun.evaluate = run, fsync, evaluate  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        subprocess.run, os.fsync, GateRun.evaluate = real_run, real_fsync, real_evaluate  # type: ignore[method-assign]


@dataclass
class Cycles:
    """Per-cycle wall time and counts of the measured cycles (the first cycle, with the run's setup, is dropped)."""

    seconds: list[float] = field(default_factory=list)
    counts: list[Counts] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def gate_off(self) -> float:
        """The median cycle without its train-only gate (what "gate off" measures)."""
        return statistics.median(s - c.gate_seconds for s, c in zip(self.seconds, self.counts))

    @property
    def gate_seconds(self) -> float:
        return statistics.median(c.gate_seconds for c in self.counts)

    @property
    def git(self) -> int:
        return round(statistics.median(c.git for c in self.counts))

    @property
    def fsyncs(self) -> int:
        return round(statistics.median(c.fsyncs for c in self.counts))

    @property
    def fsync_seconds(self) -> float:
        return statistics.median(c.fsync_seconds for c in self.counts)

    @property
    def git_seconds(self) -> float:
        return statistics.median(c.git_seconds for c in self.counts)


def our_loop(path: Path, tasks: int, cycles: int, concurrency: int = 4, latency: float = 0.0) -> Cycles:
    """`cycles` cycles of ae.Evolver with the gate off, batch = all `tasks`."""
    LatencyAgent.latency = latency
    agent = LatencyAgent(path)
    config = ae.EvolveConfig(batch_size=tasks, holdout_ratio=0.0, concurrency=concurrency, egl_window=10**6)
    result = Cycles()
    marks: list[tuple[float, Counts]] = []
    with counting() as counts:

        def progress(event: ProgressEvent) -> None:
            if event.phase == "recorded":
                marks.append((time.perf_counter(), counts.copy()))

        ae.Evolver(agent, CountingBenchmark(tasks), config, PromptLineEngine(), progress=progress).run(cycles + 1)
    for (t0, c0), (t1, c1) in zip(marks, marks[1:]):
        result.seconds.append(t1 - t0)
        result.counts.append(c1.minus(c0))
    return result


def minimal_loop(path: Path, tasks: int, cycles: int, concurrency: int = 4, latency: float = 0.0) -> Cycles:
    """The original loop's shape: reload, solve the batch, write its observations, edit the prompt, then git add,
    commit and tag, and append a history line."""
    LatencyAgent.latency = latency

    def git(*args: str) -> None:
        identity = ["-c", "user.name=b", "-c", "user.email=b@localhost", "-c", "commit.gpgsign=false"]
        subprocess.run(["git", *identity, *args], cwd=path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    records = path / "evolution"
    records.mkdir()
    (path / ".git" / "info" / "exclude").write_text("evolution/\n")
    git("add", "-A")
    git("commit", "-q", "-m", "start")
    benchmark, workspace = CountingBenchmark(tasks), ae.AgentWorkspace(path)
    batch = benchmark.get_tasks(limit=tasks)
    agent = LatencyAgent(path)
    result = Cycles()
    with counting() as counts:
        for cycle in range(1, cycles + 2):
            started, before = time.perf_counter(), counts.copy()
            agent.reload_from_fs()
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                trajectories = list(pool.map(agent.solve, batch))
            observations = [Observation(t, r, benchmark.evaluate(t, r)) for t, r in zip(batch, trajectories)]
            records.joinpath(f"batch_{cycle}.jsonl").write_text(
                "".join(json.dumps(o.to_dict(), sort_keys=True) + "\n" for o in observations))
            workspace.write_prompt(workspace.read_prompt() + f"cycle {cycle}\n")
            git("add", "-A")
            git("commit", "-q", "-m", f"cycle {cycle}")
            git("tag", f"evo-{cycle}")
            with records.joinpath("history.jsonl").open("a") as history:
                history.write(json.dumps({"cycle": cycle, "score": 1.0, "mutated": True}) + "\n")
            if cycle > 1:
                result.seconds.append(time.perf_counter() - started)
                result.counts.append(counts.copy().minus(before))
    return result
