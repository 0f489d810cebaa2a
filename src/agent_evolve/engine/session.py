"""RunSession: the lock, the task plan (made fresh or loaded on resume), the journal, git and the engine's folders."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.manifest import enabled_layers
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EvolutionEngine
from agent_evolve.engine.engine_files import EngineFiles
from agent_evolve.engine.journal import Journal, Phase
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.engine.records import RunRecords, read_json, write_json_atomic
from agent_evolve.engine.run_lock import holding_run_lock
from agent_evolve.engine.state import RunState
from agent_evolve.engine.stepping import StepOutcome
from agent_evolve.engine.tasks import TaskPlan
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import AgentEvolveError, ConfigError, WorkspaceError
from agent_evolve.llm.usage import UsageLedger
from agent_evolve.types import Task

log = logging.getLogger(__name__)


class RunSession:
    """One locked run of one workspace: its plan, tasks, journal, git and engine folders."""

    def __init__(
        self,
        config: EvolveConfig,
        workspace: AgentWorkspace,
        benchmark: BenchmarkAdapter,
        engine: EvolutionEngine,
        history: EvolutionHistory,
        ledger: UsageLedger | None = None,
    ):
        self.config, self.workspace, self.benchmark, self.engine = config, workspace, benchmark, engine
        self.history = history
        self.ledger = ledger
        self.cancel = threading.Event()
        self.path = Path(workspace.path)
        self.records = RunRecords(self.path)
        self.vc = VersionControl(self.path)
        self.journal = Journal(self.records.journal)
        self.files = EngineFiles(self.records.engine)
        self.layers: list[str] = []
        self.plan = TaskPlan((), ())
        self.train_tasks: dict[str, Task] = {}
        self.holdout_tasks: list[Task] = []
        self.val_tasks: dict[str, Task] = {}
        self.fresh = False  # no run was started here yet: the loop starts one (plan, setup, bootstrap)

    @classmethod
    @contextmanager
    def open(
        cls,
        config: EvolveConfig,
        workspace: AgentWorkspace,
        benchmark: BenchmarkAdapter,
        engine: EvolutionEngine,
        history: EvolutionHistory,
        ledger: UsageLedger | None = None,
    ) -> Iterator[RunSession]:
        """Lock the workspace and load the journaled run's plan; a workspace with no run yet is `fresh`.

        `ledger` is the run's usage ledger: the usage the engine reports from its bootstrap is charged to it.
        """
        if config.engine_resume and not engine.supports_resume:
            raise ConfigError(f"engine_resume is set but engine {engine.engine_name!r} does not support resume "
                              "(supports_resume is False)")
        records = RunRecords(Path(workspace.path))
        with holding_run_lock(records):
            if config.trajectory_only and not records.journal.exists():
                records.seal_scores()
            session = cls(config, workspace, benchmark, engine, history, ledger)
            session.vc.init()
            session.layers = enabled_layers(config, session.path)
            if session.journal.has(0, Phase.STARTED):
                session._load_plan()
            else:
                session.fresh = True
            yield session

    @property
    def needs_baseline(self) -> bool:
        return not self.journal.has(0, Phase.BASELINE)

    def resume_state(self) -> RunState:
        """The journaled state, with the engine's state folder put back as of the last finished phase."""
        state = RunState.from_journal(self.plan, self.journal)
        last = self.journal.last_recorded_cycle()
        stepped = self.journal.has(last + 1, Phase.STEPPED)
        self.files.restore(f"{last + 1}-stepped" if stepped else str(last))
        log.info("resuming %s after cycle %d (accepted %s)", self.path, last, state.accepted_tag)
        return state

    def keep_plan(self, plan: TaskPlan, pool: list[Task]) -> None:
        """Take a fresh run's task plan over the benchmark's train `pool` and record it (the holdout ids sealed)."""
        self.plan = plan
        write_json_atomic(self.records.holdout_plan, {"holdout_ids": list(self.plan.holdout_ids)})
        saved = {"train_ids": list(self.plan.train_ids), "holdout_size": len(self.plan.holdout_ids),
                 "val_ids": list(self.plan.val_ids)}
        write_json_atomic(self.records.run_plan, {"plan": saved, "seed": self.config.seed})
        self._index(pool)

    def _load_plan(self) -> None:
        saved = read_json(self.records.run_plan, None)
        sealed = read_json(self.records.holdout_plan, None)
        if saved is None or sealed is None:
            missing = self.records.run_plan if saved is None else self.records.holdout_plan
            raise WorkspaceError(f"{missing}: missing; the run's task plan cannot be restored")
        val_ids = tuple(saved["plan"].get("val_ids", ()))
        self.plan = TaskPlan(tuple(saved["plan"]["train_ids"]), tuple(sealed["holdout_ids"]), val_ids)
        self._index(self.benchmark.get_tasks("train", limit=self.config.task_pool_limit))

    def _index(self, pool: list[Task]) -> None:
        by_id = {t.id: t for t in pool}
        missing = [i for i in (*self.plan.train_ids, *self.plan.holdout_ids, *self.plan.val_ids) if i not in by_id]
        if missing:
            raise AgentEvolveError(f"the benchmark no longer has tasks of this run's plan: {missing[:5]}")
        self.train_tasks = {i: by_id[i] for i in self.plan.train_ids}
        self.holdout_tasks = [by_id[i] for i in self.plan.holdout_ids]
        self.val_tasks = {i: by_id[i] for i in self.plan.val_ids}


__all__ = ["RunSession", "StepOutcome"]
