"""The default executor: a thread pool in the driver process, on the agent the driver holds."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import Attempt, OnDone
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task


@dataclass(eq=False)
class ThreadExecutor:
    """Up to `concurrency` tasks at once on threads, `on_done` on the worker thread; after an exception or an
    interrupt no worker starts another task, and the first exception propagates once running tasks finish."""

    concurrency: int

    def run(self, work: Attempt, agent: BaseAgent, benchmark: BenchmarkAdapter, tasks: list[Task],
            on_done: OnDone | None = None) -> list[Observation]:
        def one(task: Task) -> Observation:
            observation = work(agent, benchmark, task)
            if on_done is not None:
                on_done(observation)
            return observation

        if self.concurrency <= 1 or len(tasks) <= 1:
            return [one(task) for task in tasks]
        results: list[Observation | None] = [None] * len(tasks)
        pending = iter(range(len(tasks)))
        lock, failed = threading.Lock(), threading.Event()

        def worker() -> None:
            while not failed.is_set():
                with lock:
                    index = next(pending, None)
                if index is None:
                    return
                try:
                    results[index] = one(tasks[index])
                except BaseException:
                    failed.set()
                    raise

        workers = min(self.concurrency, len(tasks))
        pool = ThreadPoolExecutor(max_workers=workers)
        try:
            futures = [pool.submit(worker) for _ in range(workers)]
            pool.shutdown(wait=True)
        except BaseException:  # the driver was interrupted (Ctrl-C, SIGTERM): running tasks end, no new one starts
            failed.set()
            raise
        for future in futures:
            future.result()
        return results  # type: ignore[return-value] - every slot is filled when no worker raised
