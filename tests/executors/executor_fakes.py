"""Agents that misbehave on purpose in worker processes: they kill their worker, buffer notes, probe the limit."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

from kernel_fakes import KeywordAgent

import agent_evolve as ae
from agent_evolve.agents.reference import ReferenceAgent
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.llm.metered import concurrency_limit
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import Task, Trajectory, Usage


class KillingAgent(KeywordAgent):
    """Kills its own process (SIGKILL) on `task_id`: once if a marker file is given, else every time."""

    def __init__(self, workspace_dir: str | Path, task_id: str = "", marker: str | None = None):
        super().__init__(workspace_dir)
        self.task_id, self.marker = task_id, marker

    def solve(self, task: Task) -> Trajectory:
        if task.id == self.task_id and (self.marker is None or not Path(self.marker).exists()):
            if self.marker is not None:
                Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return super().solve(task)


class NotingAgent(KeywordAgent):
    """Buffers a memory and a skill draft per task, as agents do while solving."""

    def solve(self, task: Task) -> Trajectory:
        self.remember(f"saw {task.id}", "episodic", task=task.id)
        self.propose_skill(f"draft-{task.id}", f"notes on {task.id}\n")
        return super().solve(task)


class SlotProbeAgent(KeywordAgent):
    """Makes `calls` concurrent model-call-like sections per task and logs how many were held at once (files)."""

    def __init__(self, workspace_dir: str | Path, probe_dir: str = "", calls: int = 3):
        super().__init__(workspace_dir)
        self.probe_dir, self.calls = Path(probe_dir), calls

    def _call(self) -> None:
        with concurrency_limit().slot():
            mine = self.probe_dir / f"{uuid.uuid4().hex}.held"
            mine.touch()
            held = len(list(self.probe_dir.glob("*.held")))
            (self.probe_dir / f"{uuid.uuid4().hex}.seen").write_text(str(held))
            time.sleep(0.05)
            mine.unlink()

    def solve(self, task: Task) -> Trajectory:
        threads = [threading.Thread(target=self._call) for _ in range(self.calls)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return super().solve(task)


def peak_model_calls(executor_class: type, tmp_path: Path, concurrency: int = 2) -> int:
    """The most model-call slots held at once while `executor_class` runs 4 tasks of 3 parallel calls each."""
    from kernel_fakes import KeywordBenchmark

    from agent_evolve.engine.solving import attempt

    agent = committed_workspace(tmp_path / "ws")
    probe = tmp_path / "probe"
    probe.mkdir()
    executor = executor_class(concurrency, partial(SlotProbeAgent, probe_dir=str(probe), calls=3))
    executor.run(attempt, agent, KeywordBenchmark(), KeywordBenchmark().get_tasks(limit=4))
    return max(int(p.read_text()) for p in probe.glob("*.seen"))


def committed_workspace(path: Path, prompt: str = "k0\n") -> KeywordAgent:
    from kernel_fakes import make_workspace

    make_workspace(path, prompt=prompt)
    vc = VersionControl(path)
    vc.init()
    vc.commit("start")
    return KeywordAgent(path)


def run_summary(workspace: Path) -> dict[str, Any]:
    """What two runs of the same evolution must share, whatever executor ran the rollouts (no timings)."""
    history = ae.EvolutionHistory(workspace)
    records = []
    for record in history.cycle_records():
        metadata = {k: v for k, v in record["metadata"].items() if k != "usage"}
        records.append({**{k: v for k, v in record.items() if k not in ("metadata", "timestamp")}, "metadata": metadata})
    observations = [(o.task.id, o.trajectory.output, o.feedback.score, o.feedback.success) for o in history.get_observations()]
    gates = sorted(p.name for p in (workspace / "evolution").rglob("cycle_*.json"))
    return {
        "records": json.loads(json.dumps(records)),
        "observations": observations,
        "gates": gates,
        "tags": VersionControl(workspace).list_tags(""),
        "prompt": (workspace / "prompts" / "system.md").read_text(),
        "memory": sorted(p.name for p in (workspace / "memory").glob("*")),
    }


class MeteredAgent(KeywordAgent):
    """Records one model call of 10 input tokens per task into `ledger`, as a metered client would."""

    def __init__(self, workspace_dir: str | Path, ledger: UsageLedger | None = None):
        super().__init__(workspace_dir)
        self.ledger = ledger

    def solve(self, task: Task) -> Trajectory:
        assert self.ledger is not None
        self.ledger.record("agent", Usage(calls=1, input_tokens=10))
        return super().solve(task)


class KillingReferenceAgent(ReferenceAgent):
    """The real reference agent, which kills its worker once on task t5 (marker folder: $AE_KILL_MARKER_DIR)."""

    def solve(self, task: Task) -> Trajectory:
        marker = Path(os.environ["AE_KILL_MARKER_DIR"]) / "killed"
        if task.id == "t5" and not marker.exists() and os.getpid() != int(os.environ["AE_DRIVER_PID"]):
            marker.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return super().solve(task)
