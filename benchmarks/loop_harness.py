"""Shared pieces of the loop benchmarks: an instant (or fixed-latency) agent, counters, our loop and a minimal one.

The minimal loop has the shape of the original A-Evolve loop: solve a batch, let the engine edit, then
`git add -A`, `git commit`, `git tag`. Nothing else: no journal, no records, no diff, no gate.
"""

from __future__ import annotations

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
from agent_evolve.engine.loop import ProgressEvent
from agent_evolve.types import Feedback, StepResult, Task, Trajectory

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
    """Git subprocesses and fsyncs seen, with the seconds spent in fsync."""

    git: int = 0
    fsyncs: int = 0
    fsync_seconds: float = 0.0
    git_seconds: float = 0.0

    def minus(self, other: Counts) -> Counts:
        return Counts(
            self.git - other.git,
            self.fsyncs - other.fsyncs,
            self.fsync_seconds - other.fsync_seconds,
            self.git_seconds - other.git_seconds,
        )

    def copy(self) -> Counts:
        return Counts(self.git, self.fsyncs, self.fsync_seconds, self.git_seconds)


@contextmanager
def counting() -> Iterator[Counts]:
    """Count git subprocesses and time fsyncs while the block runs."""
    counts = Counts()
    real_run, real_fsync = subprocess.run, os.fsync

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

    subprocess.run, os.fsync = run, fsync
    try:
        yield counts
    finally:
        subprocess.run, os.fsync = real_run, real_fsync


@dataclass
class Cycles:
    """Per-cycle wall time and counts of the measured cycles (the first cycle, with the run's setup, is dropped)."""

    seconds: list[float] = field(default_factory=list)
    counts: list[Counts] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

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
    """The original loop's shape: solve the batch, edit the prompt, then git add, commit and tag."""
    LatencyAgent.latency = latency

    def git(*args: str) -> None:
        identity = ["-c", "user.name=b", "-c", "user.email=b@localhost", "-c", "commit.gpgsign=false"]
        subprocess.run(["git", *identity, *args], cwd=path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
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
                list(pool.map(lambda t: benchmark.evaluate(t, agent.solve(t)), batch))
            workspace.write_prompt(workspace.read_prompt() + f"cycle {cycle}\n")
            git("add", "-A")
            git("commit", "-q", "-m", f"cycle {cycle}")
            git("tag", f"evo-{cycle}")
            if cycle > 1:
                result.seconds.append(time.perf_counter() - started)
                result.counts.append(counts.copy().minus(before))
    return result
