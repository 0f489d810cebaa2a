"""Resumable per-task test scoring, keyed by the workspace's content hash: a killed experiment re-solves only
unfinished tasks, and an identical workspace reuses its scores."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

from agent_evolve.api import RoleClient, RunClients, agent_from_workspace
from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.jsonl import repair_tail
from agent_evolve.contract.paths import RECORDS_DIR, is_temp_file
from agent_evolve.contract.regular_files import read_regular_bytes
from agent_evolve.engine.loop import TEST_PHASE, Progress, ProgressEvent
from agent_evolve.engine.records import read_jsonl
from agent_evolve.engine.solving import is_infrastructure_failure, model_usage, solve_all
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task

AgentMaker = Callable[[Path, EvolveConfig, RoleClient], BaseAgent]
"""Builds the agent that scores a workspace (default: the workspace's own agent)."""


def workspace_files(root: Path) -> dict[str, bytes]:
    """The workspace's content: its files by relative path, but run records, git, caches and temporary files."""
    files: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        top = Path(dirpath) == root
        dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__") and not (top and d == RECORDS_DIR)]
        for filename in filenames:
            path = Path(dirpath) / filename
            if not (is_temp_file(filename) or filename.endswith(".pyc")) and path.is_file():
                files[path.relative_to(root).as_posix()] = read_regular_bytes(path)
    return files


def workspace_key(path: Path) -> str:
    """A short hash of every file of the workspace but its run records and git (`workspace_files`)."""
    digest = hashlib.sha256()
    for rel, data in sorted(workspace_files(Path(path)).items()):
        digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


def own_agent(workspace: Path, config: EvolveConfig, roles: RoleClient) -> BaseAgent:
    """The agent the workspace's manifest names."""
    return agent_from_workspace(workspace, config, roles)[0]


def stored_scores(path: Path) -> dict[str, float]:
    """Each scored task's score (a row that records an infrastructure failure holds no score)."""
    return {str(row["task_id"]): float(row["score"]) for row in read_jsonl(path) if "score" in row}


def store_cost(path: Path, made_by: str | None = None) -> dict[str, float]:
    """What a store's scores cost (only `made_by`'s rows, when given): solves, failed ones too, scored tasks, tokens
    and the solves' seconds, read from the rows so that a scoring spread over sittings counts every sitting."""
    rows = [r for r in read_jsonl(path) if made_by is None or r.get("by") == made_by]
    return {"solves": len(rows), "scored": sum(1 for r in rows if "score" in r),
            "tokens": sum(float(r.get("tokens", 0)) for r in rows),
            "seconds": round(sum(float(r.get("seconds", 0.0)) for r in rows), 1)}


def score_tasks(
    workspace: Path, benchmark: BenchmarkAdapter, tasks: list[Task], store: Path, config: EvolveConfig,
    made_by: str, progress: Progress | None = None, *, sampling_seed: int = 0, make_agent: AgentMaker | None = None,
) -> dict[str, float]:
    """Per-task scores of the workspace's agent, solving only tasks `store` lacks (rows name `made_by`); an
    infrastructure failure is stored without a score, so it costs but its task is solved again next run."""
    done = stored_scores(store)
    todo = [t for t in tasks if t.id not in done]
    if todo:
        store.parent.mkdir(parents=True, exist_ok=True)
        repair_tail(store)
        ledger = UsageLedger(max_total_tokens=config.max_total_tokens, max_cost_usd=config.max_cost_usd)
        roles = RunClients(config, ledger, seed=sampling_seed)
        agent = (make_agent or own_agent)(workspace, config, roles)
        lock = threading.Lock()
        finished = 0
        tell = progress or (lambda event: None)
        tell(ProgressEvent(0, TEST_PHASE, total=len(todo)))
        with store.open("a", encoding="utf-8") as sink:

            def keep(obs: Observation) -> None:
                nonlocal finished
                outcome = ({"failed": obs.feedback.detail[:300]}
                           if is_infrastructure_failure(obs) else
                           {"score": obs.feedback.score, "success": obs.feedback.success})
                row = {"task_id": obs.task.id, **outcome, "tokens": model_usage(obs.trajectory).total_tokens,
                       "seconds": float(obs.feedback.raw.get("seconds", 0.0)), "by": made_by}
                with lock:
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                    finished += 1
                    tell(ProgressEvent(0, TEST_PHASE, done=finished, total=len(todo)))

            solve_all(agent, benchmark, todo, config.in_flight, keep)
        done = stored_scores(store)
    return {t.id: done[t.id] for t in tasks if t.id in done}
