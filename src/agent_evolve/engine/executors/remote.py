"""Both ends of a rollout in another process: the driver ships a committed workspace version as a tar archive
(never its live tree), the worker builds the agent from it, and the driver merges back usage and buffers."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.engine.executors.base import AgentFactory, Attempt, OnDone
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import WorkspaceError
from agent_evolve.llm.metered import ConcurrencyLimit, install_concurrency_limit
from agent_evolve.llm.usage import UsageLedger, default_ledger
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Observation, Task, Usage

_KEEP = 2  # snapshots (and their agents) a worker keeps: the accepted version and the candidate under gate
SNAPSHOT_ROOT = Path(tempfile.gettempdir()) / "agent-evolve-snapshots"
_SAFE = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python 3.11.4+ refuses unsafe members


@dataclass(frozen=True)
class WorkspaceSnapshot:
    """The tree of one commit (`key` names it uniquely for a run) as tar bytes."""

    key: str
    archive: bytes

    @classmethod
    def of(cls, workspace: str | Path, run_token: str) -> WorkspaceSnapshot:
        """The workspace's HEAD commit; in the loop that is the accepted version or the candidate under gate."""
        vc = VersionControl(workspace)
        if not vc.is_repo() or not vc.has_commits():
            raise WorkspaceError(f"{workspace}: remote executors ship a committed version; this is not a git repository")
        sha = vc.head()
        return cls(f"{run_token}-{sha}", vc.archive(sha))

    def materialize(self) -> Path:
        """Unpack into a folder of this process (atomically, so a crash never leaves a half-written one)."""
        target = SNAPSHOT_ROOT / f"{self.key}-{os.getpid()}"
        if target.is_dir():
            return target
        SNAPSHOT_ROOT.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=SNAPSHOT_ROOT))
        with tarfile.open(fileobj=io.BytesIO(self.archive)) as tar:
            tar.extractall(staging, **_SAFE)
        staging.rename(target)
        return target

    def discard(self) -> None:
        shutil.rmtree(SNAPSHOT_ROOT / f"{self.key}-{os.getpid()}", ignore_errors=True)


class Semaphore(Protocol):
    """A counting semaphore shared by processes (an OS semaphore, a Ray actor)."""

    def acquire(self) -> Any: ...

    def release(self) -> Any: ...


class SharedSlots(ConcurrencyLimit):
    """A worker's model-call limit: its own count plus a semaphore shared with every other worker."""

    def __init__(self, limit: int, shared: Semaphore):
        super().__init__(limit)
        self._shared = shared

    @contextmanager
    def slot(self) -> Iterator[None]:
        with super().slot():
            self._shared.acquire()
            try:
                yield
            finally:
                self._shared.release()


@dataclass
class RemoteJob:
    """What a worker needs for a batch: the version to load, how to build the agent, the grader, the work."""

    snapshot: WorkspaceSnapshot
    agent_factory: AgentFactory
    benchmark: BenchmarkAdapter
    work: Attempt
    concurrency: int
    shared: Semaphore | None = None
    ledger: UsageLedger | None = None  # the ledger the factory's clients record into (None: this process's default)


@dataclass
class RemoteResult:
    """One task's observation plus what the worker's agent buffered and the model usage it spent."""

    observation: Observation
    memories: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    drafts: list[tuple[str, str]] = field(default_factory=list)
    usage: dict[str, Usage] = field(default_factory=dict)


_agents: dict[str, tuple[BaseAgent, UsageLedger]] = {}
_snapshots: dict[str, WorkspaceSnapshot] = {}
_ledger: UsageLedger | None = None  # the ledger of the job whose agent this worker builds or runs


def worker_ledger() -> UsageLedger:
    """The ledger a client built inside a worker records into: the one the worker reports usage from."""
    return _ledger if _ledger is not None else default_ledger()


def run_remote(job: RemoteJob, task: Task) -> RemoteResult:
    """Worker side: solve and grade `task` with an agent built (once per process) from the job's snapshot."""
    global _ledger
    if job.shared is not None:
        install_concurrency_limit(SharedSlots(job.concurrency, job.shared))
    _ledger = job.ledger or default_ledger()
    agent, ledger = _agent_for(job)
    before = ledger.by_role()
    observation = job.work(agent, job.benchmark, task)
    spent = {role: usage - before.get(role, Usage()) for role, usage in ledger.by_role().items()}
    memories, drafts = agent.take_pending()
    return RemoteResult(observation, memories, drafts, {r: u for r, u in spent.items() if any(u.to_dict().values())})


def _agent_for(job: RemoteJob) -> tuple[BaseAgent, UsageLedger]:
    """The agent built for the job's snapshot in this process, with the ledger its clients record into."""
    key = job.snapshot.key
    if key not in _agents:
        _agents[key] = (job.agent_factory(job.snapshot.materialize()), job.ledger or default_ledger())
        _snapshots[key] = job.snapshot
        for old in list(_agents)[:-_KEEP]:
            del _agents[old]
            _snapshots.pop(old).discard()
    return _agents[key]


def account(result: RemoteResult, ledger: UsageLedger) -> Observation:
    """Driver side, as each result arrives: add its usage to the run's ledger and stop if a budget is spent."""
    for role, usage in result.usage.items():
        ledger.record(role, usage)
    ledger.check_budget()
    return result.observation


def hand_over(results: list[RemoteResult], agent: BaseAgent) -> None:
    """Driver side, once a batch is in: the workers' buffered memories and drafts go to `agent`, in task order."""
    for result in results:
        for category, entry in result.memories:
            extra = {k: v for k, v in entry.items() if k != "content"}
            agent.remember(entry["content"], category, **extra)
        for name, content in result.drafts:
            agent.propose_skill(name, content)


class SnapshotExecutor:
    """The executors whose workers build the agent from a snapshot of the committed workspace (processes, Ray);
    usage the workers record is added to `ledger` (the default ledger when none is given)."""

    def __init__(self, concurrency: int, agent_factory: AgentFactory, ledger: UsageLedger | None = None):
        self.concurrency = concurrency
        self.agent_factory = agent_factory
        self.ledger = ledger or default_ledger()
        self._token = uuid.uuid4().hex[:8]

    def run(self, work: Attempt, agent: BaseAgent, benchmark: BenchmarkAdapter, tasks: list[Task],
            on_done: OnDone | None = None) -> list[Observation]:
        """The executor protocol's `run`: `_run` on this version's snapshot (none for no task)."""
        if not tasks:
            return []
        snapshot = WorkspaceSnapshot.of(agent.workspace.path, self._token)
        return self._run(snapshot, work, agent, benchmark, tasks, on_done)

    def _run(self, snapshot: WorkspaceSnapshot, work: Attempt, agent: BaseAgent, benchmark: BenchmarkAdapter,
             tasks: list[Task], on_done: OnDone | None) -> list[Observation]:
        """Run `tasks` on the workers that load `snapshot`."""
        raise NotImplementedError
