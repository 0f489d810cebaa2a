"""A process pool on this machine: each worker builds its agent from the committed workspace version."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import AgentFactory, Attempt, OnDone, lost_task
from agent_evolve.engine.executors.remote import (RemoteJob, RemoteResult, SnapshotExecutor, WorkspaceSnapshot,
                                                  account, hand_over, run_remote)
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

_job: RemoteJob | None = None


def _adopt(job: RemoteJob) -> None:
    global _job
    _job = job


def _run(task: Task) -> RemoteResult:
    assert _job is not None, "the pool initializer sets the job"
    return run_remote(_job, task)


class ProcessExecutor(SnapshotExecutor):
    """Up to `concurrency` worker processes, forked so the agent factory and benchmark need not pickle; a task lost
    with a dead worker is retried once in a process of its own. One OS semaphore bounds all workers' model calls."""

    def __init__(self, concurrency: int, agent_factory: AgentFactory, ledger: UsageLedger | None = None):
        super().__init__(concurrency, agent_factory, ledger)
        self._context = multiprocessing.get_context("fork")

    def _run(self, snapshot: WorkspaceSnapshot, work: Attempt, agent: BaseAgent, benchmark: BenchmarkAdapter,
             tasks: list[Task], on_done: OnDone | None) -> list[Observation]:
        """One pool for the batch, then each lost task alone in a process of its own."""
        shared = self._context.BoundedSemaphore(self.concurrency)
        job = RemoteJob(snapshot, self.agent_factory, benchmark, work, self.concurrency, shared, self.ledger)
        results: dict[int, RemoteResult] = {}
        lost = self._round(job, tasks, results, on_done)
        lost = self._retry_alone(job, tasks, lost, results, on_done)
        observations: list[Observation] = []
        for index, task in enumerate(tasks):
            if index in results:
                observations.append(results[index].observation)
            else:
                observation = lost_task(task, lost[index])
                observations.append(observation)
                if on_done is not None:
                    on_done(observation)
        hand_over([results[i] for i in sorted(results)], agent)
        return observations

    def _round(self, job: RemoteJob, tasks: list[Task], results: dict[int, RemoteResult],
               on_done: OnDone | None) -> dict[int, str]:
        """Run every task in one pool; returns those lost when a worker died (the pool then fails them all)."""
        lost: dict[int, str] = {}
        pool = self._pool(job, min(self.concurrency, len(tasks)))
        try:
            futures: dict[Future[RemoteResult], int] = {pool.submit(_run, task): i for i, task in enumerate(tasks)}
            for future in as_completed(futures):
                try:
                    self._done(futures[future], future.result(), results, on_done)
                except BrokenProcessPool as exc:
                    lost[futures[future]] = f"{type(exc).__name__}: {exc}"
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return lost

    def _retry_alone(self, job: RemoteJob, tasks: list[Task], lost: dict[int, str], results: dict[int, RemoteResult],
                     on_done: OnDone | None) -> dict[int, str]:
        """Try each lost task once more in a process of its own, so only the task that kills its worker fails."""
        if not lost:
            return {}
        again: dict[int, str] = {}
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(lost))) as threads:
            futures = {threads.submit(self._alone, job, tasks[i]): i for i in sorted(lost)}
            for future in as_completed(futures):
                outcome = future.result()
                if isinstance(outcome, str):
                    again[futures[future]] = outcome
                else:
                    self._done(futures[future], outcome, results, on_done)
        return again

    def _alone(self, job: RemoteJob, task: Task) -> RemoteResult | str:
        pool = self._pool(job, 1)
        try:
            return pool.submit(_run, task).result()
        except BrokenProcessPool as exc:
            return f"{type(exc).__name__}: {exc}"
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _pool(self, job: RemoteJob, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=workers, mp_context=self._context, initializer=_adopt, initargs=(job,))

    def _done(self, index: int, result: RemoteResult, results: dict[int, RemoteResult], on_done: OnDone | None) -> None:
        results[index] = result
        observation = account(result, self.ledger)
        if on_done is not None:
            on_done(observation)
