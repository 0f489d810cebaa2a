"""Per-arm cost: task solves (counted at `evaluate` and written at each, so a kill keeps them), engine calls, tokens,
wall time."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.contract.paths import atomic_write
from agent_evolve.engine.records import read_json
from agent_evolve.environments.task_env import EnvironmentSpec, TaskEnvironment
from agent_evolve.types import Feedback, Task, Trajectory


class MeteredBenchmark(BenchmarkAdapter):
    """Delegates to a benchmark and counts the attempts it grades, with the wall time, into a JSON file."""

    def __init__(self, inner: BenchmarkAdapter, ledger: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.score_range = inner.score_range  # class attributes of the base, so __getattr__ never sees them
        self.answer_kind = inner.answer_kind
        self.ledger = ledger
        saved = read_json(ledger, {}) if ledger.is_file() else {}
        self.solves = int(saved.get("solves", 0))
        self._seconds = float(saved.get("seconds", 0.0))
        self._started = time.monotonic()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get_tasks(self, split: str = "train", limit: int | None = 10) -> list[Task]:
        return self.inner.get_tasks(split, limit=limit)

    def evaluate(self, task: Task, trajectory: Trajectory) -> Feedback:
        return self._counted(self.inner.evaluate(task, trajectory))

    def environment(self, task: Task) -> EnvironmentSpec | None:
        return self.inner.environment(task)

    def evaluate_in(self, task: Task, trajectory: Trajectory, environment: TaskEnvironment) -> Feedback:
        return self._counted(self.inner.evaluate_in(task, trajectory, environment))

    def _counted(self, feedback: Feedback) -> Feedback:
        with self._lock:
            self.solves += 1
            self.flush()
        return feedback

    @property
    def seconds(self) -> float:
        return self._seconds + time.monotonic() - self._started

    def flush(self) -> None:
        """Write the counts so far (also called at the end of a stage, to keep its wall time)."""
        self.ledger.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.ledger, json.dumps({"solves": self.solves, "seconds": round(self.seconds, 1)}))


def usage_totals(metrics: dict[str, Any]) -> dict[str, float]:
    """Engine model calls and all tokens from a run's metrics (its usage by role)."""
    usage = metrics.get("usage") or {}
    tokens = sum(float(n.get("input_tokens", 0)) + float(n.get("output_tokens", 0)) for n in usage.values())
    engine_calls = sum(float(n.get("calls", 0)) for role, n in usage.items() if role != "agent")
    return {"engine_calls": engine_calls, "tokens": tokens}


def arm_cost(evolution: MeteredBenchmark, metrics: dict[str, Any], test: dict[str, float]) -> dict[str, float]:
    """One arm's cost: evolution solves and time, the model usage its run recorded, and its test scoring."""
    usage = usage_totals(metrics)
    return {
        "evolution_solves": evolution.solves,
        "test_solves": test.get("solves", 0),
        "solves": evolution.solves + test.get("solves", 0),
        "engine_calls": usage["engine_calls"],
        "tokens": usage["tokens"] + test.get("tokens", 0),
        "seconds": round(evolution.seconds + test.get("seconds", 0), 1),
    }
