"""The thread executor: results in task order whatever finishes first, `concurrency` at once, a failure stops new
starts and propagates."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from agent_evolve.engine.executors import ThreadExecutor
from agent_evolve.errors import BudgetExceededError
from agent_evolve.types import Feedback, Observation, Task, Trajectory


def tasks(n: int) -> list[Task]:
    return [Task(id=f"t{i}", input=str(i)) for i in range(n)]


def test_results_come_back_in_task_order_with_at_most_concurrency_running() -> None:
    running, peak, lock, done = [0], [0], threading.Lock(), []

    def work(_agent: object, _benchmark: object, task: Task) -> Observation:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.001 * (int(task.input) % 5))  # later tasks often finish first
        with lock:
            running[0] -= 1
        return Observation(task, Trajectory(task.id, task.input), Feedback(True, 1.0))

    observations = ThreadExecutor(4).run(work, None, None, tasks(40), done.append)  # type: ignore[arg-type]
    assert [o.task.id for o in observations] == [f"t{i}" for i in range(40)]
    assert sorted(o.task.id for o in done) == sorted(f"t{i}" for i in range(40))
    assert peak[0] == 4


def test_after_a_spent_budget_no_new_task_starts_and_the_error_propagates() -> None:
    started: list[str] = []

    def work(_agent: object, _benchmark: object, task: Task) -> Observation:
        started.append(task.id)
        if task.id == "t3":
            raise BudgetExceededError("token budget spent")
        time.sleep(0.01)
        return Observation(task, Trajectory(task.id, task.input), Feedback(True, 1.0))

    with pytest.raises(BudgetExceededError, match="token budget spent"):
        ThreadExecutor(2).run(work, None, None, tasks(200))  # type: ignore[arg-type]
    assert "t3" in started and len(started) <= 6, started


@pytest.mark.usefixtures("ctrl_c_raises")
def test_an_interrupted_driver_starts_no_new_task_after_the_running_ones() -> None:
    started: list[str] = []
    main = threading.main_thread().ident
    assert main is not None

    def work(_agent: object, _benchmark: object, task: Task) -> Observation:
        started.append(task.id)
        if task.id == "t3":
            signal.pthread_kill(main, signal.SIGINT)  # Ctrl-C, as a real signal, while tasks are running
        time.sleep(0.2)
        return Observation(task, Trajectory(task.id, task.input), Feedback(True, 1.0))

    with pytest.raises(KeyboardInterrupt):
        ThreadExecutor(2).run(work, None, None, tasks(40))  # type: ignore[arg-type]
    at_interrupt = len(started)
    time.sleep(1.0)  # without the stop, the two workers would start about ten more tasks in this second
    assert len(started) <= at_interrupt + 2  # at most one task per worker that had already taken its next one
