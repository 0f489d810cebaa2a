"""Rollouts on a Ray cluster: workers load the committed workspace version, the loop stays on the driver; a task
whose worker dies is retried once, then an infrastructure failure; one semaphore actor bounds all model calls."""

from __future__ import annotations

import asyncio
import pickle
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import RayError, RayTaskError

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import AgentFactory, Attempt, OnDone, lost_task
from agent_evolve.engine.executors.remote import (RemoteJob, RemoteResult, SnapshotExecutor, WorkspaceSnapshot,
                                                  account, hand_over, run_remote)
from agent_evolve.errors import ConfigError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

_attempt = ray.remote(max_retries=1, retry_exceptions=False)(run_remote)


@ray.remote(num_cpus=0)
class SemaphoreActor:
    """A cluster-wide counting semaphore; `reset` at the start of a batch reclaims slots of dead workers."""

    def __init__(self, limit: int):
        self._semaphore = asyncio.Semaphore(limit)

    async def reset(self, limit: int) -> None:
        self._semaphore = asyncio.Semaphore(limit)

    async def acquire(self) -> None:
        await self._semaphore.acquire()

    async def release(self) -> None:
        self._semaphore.release()


@dataclass
class ActorSemaphore:
    """The worker-side handle of the shared semaphore (picklable: it holds only the actor handle)."""

    actor: Any

    def acquire(self) -> None:
        ray.get(self.actor.acquire.remote())

    def release(self) -> None:
        ray.get(self.actor.release.remote())


class RayExecutor(SnapshotExecutor):
    """Keeps up to `concurrency` tasks in flight on the cluster at `address` (None: start or join a local one)."""

    def __init__(self, concurrency: int, agent_factory: AgentFactory, address: str | None = None,
                 ledger: UsageLedger | None = None):
        super().__init__(concurrency, agent_factory, ledger)
        self.address = address
        self._semaphore: Any = None

    def _connect(self) -> Any:
        if not ray.is_initialized():
            ray.init(address=self.address, include_dashboard=False)
        if self._semaphore is None:
            self._semaphore = SemaphoreActor.remote(self.concurrency)
        ray.get(self._semaphore.reset.remote(self.concurrency))
        return self._semaphore

    def _run(self, snapshot: WorkspaceSnapshot, work: Attempt, agent: BaseAgent, benchmark: BenchmarkAdapter,
             tasks: list[Task], on_done: OnDone | None) -> list[Observation]:
        """Up to `concurrency` tasks in flight on the cluster, collected as they finish."""
        semaphore = self._connect()
        job = _ship(RemoteJob(snapshot, self.agent_factory, benchmark, work, self.concurrency, ActorSemaphore(semaphore)))
        results: dict[int, RemoteResult] = {}
        observations: dict[int, Observation] = {}
        in_flight: dict[Any, int] = {}
        queue = list(range(len(tasks)))
        try:
            while queue or in_flight:
                while queue and len(in_flight) < self.concurrency:
                    index = queue.pop(0)
                    in_flight[_attempt.remote(job, tasks[index])] = index
                [ready], _ = ray.wait(list(in_flight), num_returns=1)
                index = in_flight.pop(ready)
                observations[index] = self._collect(ready, tasks[index], results, index)
                if on_done is not None:
                    on_done(observations[index])
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=True)
        hand_over([results[i] for i in sorted(results)], agent)
        return [observations[i] for i in range(len(tasks))]

    def _collect(self, ref: Any, task: Task, results: dict[int, RemoteResult], index: int) -> Observation:
        try:
            result = ray.get(ref)
        except RayTaskError:
            raise  # the work raised (a spent budget, a fatal error): it is also an instance of that error
        except RayError as exc:
            return lost_task(task, f"{type(exc).__name__}: {exc}")
        results[index] = result
        return account(result, self.ledger)


def _ship(job: RemoteJob) -> Any:
    """Put the job in the object store once per batch; a factory or benchmark that cannot travel is a config error."""
    try:
        return ray.put(job)
    except (TypeError, pickle.PicklingError) as exc:
        raise ConfigError(
            f"executor 'ray' sends the agent factory and the benchmark to its workers, and they cannot be pickled "
            f"({exc}); build model clients inside the agent on the worker, or use executor 'processes'"
        ) from exc
