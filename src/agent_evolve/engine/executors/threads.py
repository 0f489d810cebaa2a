"""The default executor: a thread pool in the driver process, on the agent the driver holds."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import Attempt, OnDone
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task


class ThreadExecutor:
    """Up to `concurrency` tasks at once on threads; `on_done` runs on the worker thread."""

    def __init__(self, concurrency: int):
        self.concurrency = concurrency

    def run(
        self,
        work: Attempt,
        agent: BaseAgent,
        benchmark: BenchmarkAdapter,
        tasks: list[Task],
        on_done: OnDone | None = None,
    ) -> list[Observation]:
        def one(task: Task) -> Observation:
            observation = work(agent, benchmark, task)
            if on_done is not None:
                on_done(observation)
            return observation

        if self.concurrency <= 1 or len(tasks) <= 1:
            return [one(task) for task in tasks]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(tasks))) as pool:
            return list(pool.map(one, tasks))
