"""A process pool on this machine: each worker builds its agent from the committed workspace version."""

from __future__ import annotations

import multiprocessing
import uuid
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import AgentFactory, Attempt, OnDone, lost_task
from agent_evolve.engine.executors.remote import RemoteJob, RemoteResult, account, hand_over, run_remote
from agent_evolve.engine.executors.snapshot import WorkspaceSnapshot
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

_TRIES = 2  # a task whose worker died is run once more, in a fresh pool
_job: RemoteJob | None = None


def _adopt(job: RemoteJob) -> None:
    global _job
    _job = job


def _run(task: Task) -> RemoteResult:
    assert _job is not None, "the pool initializer sets the job"
    return run_remote(_job, task)


class ProcessExecutor:
    """Up to `concurrency` worker processes, forked so the agent factory and benchmark need not pickle.

    The model-call limit is one OS semaphore shared by all workers of a batch.
    """

    def __init__(self, concurrency: int, agent_factory: AgentFactory):
        self.concurrency = concurrency
        self.agent_factory = agent_factory
        self._token = uuid.uuid4().hex[:8]
        self._context = multiprocessing.get_context("fork")

    def run(
        self,
        work: Attempt,
        agent: BaseAgent,
        benchmark: BenchmarkAdapter,
        tasks: list[Task],
        on_done: OnDone | None = None,
    ) -> list[Observation]:
        if not tasks:
            return []
        snapshot = WorkspaceSnapshot.of(agent.workspace.path, self._token)
        shared = self._context.BoundedSemaphore(self.concurrency)
        job = RemoteJob(snapshot, self.agent_factory, benchmark, work, self.concurrency, shared)
        results: dict[int, RemoteResult] = {}
        lost: dict[int, str] = {}
        pending = list(range(len(tasks)))
        for _ in range(_TRIES):
            lost = self._round(job, tasks, pending, results, on_done)
            pending = sorted(lost)
            if not pending:
                break
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

    def _round(
        self,
        job: RemoteJob,
        tasks: list[Task],
        indices: list[int],
        results: dict[int, RemoteResult],
        on_done: OnDone | None,
    ) -> dict[int, str]:
        """Run `indices` in one pool; returns the ones whose worker died, with the error."""
        lost: dict[int, str] = {}
        pool = ProcessPoolExecutor(
            max_workers=min(self.concurrency, len(indices)),
            mp_context=self._context,
            initializer=_adopt,
            initargs=(job,),
        )
        try:
            futures: dict[Future[RemoteResult], int] = {pool.submit(_run, tasks[i]): i for i in indices}
            for future in as_completed(futures):
                index = futures[future]
                try:
                    result = future.result()
                except BrokenProcessPool as exc:
                    lost[index] = f"{type(exc).__name__}: {exc}"
                    continue
                results[index] = result
                observation = account(result)
                if on_done is not None:
                    on_done(observation)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return lost
