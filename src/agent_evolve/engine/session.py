"""RunSession: the lock, the task plan (made fresh or loaded on resume), the journal, git and the engine's folders."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_evolve.benchmarks.base import BenchmarkAdapter
from agent_evolve.config import EvolveConfig
from agent_evolve.contract.manifest import enabled_layers
from agent_evolve.contract.regular_files import copy_tree
from agent_evolve.contract.workspace import AgentWorkspace
from agent_evolve.engine.base import EngineContext, EvolutionEngine
from agent_evolve.engine.journal import Journal, Phase, RunState
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.engine.records import RunRecords, holding_run_lock, read_json, write_json_atomic
from agent_evolve.engine.run_settings import record_settings
from agent_evolve.engine.tasks import TaskPlan
from agent_evolve.engine.trial import TrialRunner
from agent_evolve.engine.versioning import VersionControl, pre_evolution_tag
from agent_evolve.errors import AgentEvolveError, ConfigError, WorkspaceError
from agent_evolve.types import Task

log = logging.getLogger(__name__)

RESUME_HINT = "call run(force=True) to continue with the new ones, or give a new workspace"


@dataclass(frozen=True)
class EngineFiles:
    """The engine's folders: `state/` persists (snapshotted per cycle, restored on resume), `scratch/` is emptied
    per call, `output/cycle_N` keeps a cycle's reports."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / "state"

    def context(self, config: EvolveConfig, workspace: AgentWorkspace, history: EvolutionHistory, cycle: int,
                trial: TrialRunner | None = None) -> EngineContext:
        """A fresh context for one engine call of `cycle`."""
        scratch, output = self.root / "scratch", self.output_dir(cycle)
        if not _is_empty_dir(scratch):
            shutil.rmtree(scratch, ignore_errors=True)
        for folder in (self.state, scratch, output):
            folder.mkdir(parents=True, exist_ok=True)
        return EngineContext(config=config, workspace=workspace, history=history, state_dir=self.state,
                             scratch_dir=scratch, output_dir=output, cycle=cycle, trial=trial)

    def output_dir(self, cycle: int) -> Path:
        return self.root / "output" / f"cycle_{cycle}"

    def snapshot(self, label: str) -> None:
        """Copy `state/` to `snapshots/<label>` through a staging folder (a crash never leaves half a copy); an
        empty state is no snapshot at all, which `restore` reads as empty."""
        target = self.root / "snapshots" / label
        if not self.state.exists() or _is_empty_dir(self.state):
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            return
        staging = target.with_name(f".{label}.tmp")
        shutil.rmtree(staging, ignore_errors=True)
        copy_tree(self.state, staging)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)

    def restore(self, label: str) -> None:
        """Make `state/` exactly the snapshot `label` (empty when there is none)."""
        snapshot = self.root / "snapshots" / label
        shutil.rmtree(self.state, ignore_errors=True)
        if snapshot.exists():
            copy_tree(snapshot, self.state)
        else:
            self.state.mkdir(parents=True, exist_ok=True)


def _is_empty_dir(folder: Path) -> bool:
    """True for an existing folder with no entries (False when absent or not a folder)."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is None
    except OSError:
        return False


class RunSession:
    """One locked run of one workspace: its plan, tasks, journal, git and engine folders."""

    def __init__(self, config: EvolveConfig, workspace: AgentWorkspace, benchmark: BenchmarkAdapter):
        self.config, self.benchmark = config, benchmark
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
    def open(cls, config: EvolveConfig, workspace: AgentWorkspace, benchmark: BenchmarkAdapter,
             engine: EvolutionEngine, force: bool = False) -> Iterator[RunSession]:
        """Lock the workspace, check and record the run's settings (a resumed run must keep them unless `force`) and
        load the journaled run's plan; a workspace with no run yet is `fresh`."""
        if config.engine_resume and not engine.supports_resume:
            raise ConfigError(f"engine_resume is set but engine {engine.engine_name!r} does not support resume "
                              "(supports_resume is False)")
        records = RunRecords(Path(workspace.path))
        with holding_run_lock(records):
            if config.trajectory_only and not records.journal.exists():
                records.seal_scores()
            if changed := record_settings(records, config, benchmark, engine, force, RESUME_HINT):
                log.warning("%s: continuing with changed settings (force): %s", workspace.path, "; ".join(changed))
            session = cls(config, workspace, benchmark)
            session.vc.init()
            if session.vc.has_ref(pre_evolution_tag(0)):  # a run began here; it resets the workspace to its versions
                session.vc.keep_uncommitted("the run")
            session.layers = enabled_layers(config, session.path)
            if session.journal.has(0, Phase.STARTED):
                session._load_plan()
            else:
                session.fresh = True
            yield session

    def resume_state(self) -> RunState:
        """The journaled state, with the engine's state folder put back as of the last finished phase."""
        state = RunState.from_journal(self.plan, self.journal)
        last = self.journal.last_recorded_cycle()
        stepped = self.journal.has(last + 1, Phase.STEPPED)
        self.files.restore(f"{last + 1}-stepped" if stepped else str(last))
        log.info("resuming %s after cycle %d (accepted %s)", self.path, last, state.accepted_tag)
        return state

    def begin(self, plan: TaskPlan, pool: list[Task]) -> None:
        """Begin a fresh run: record its task plan over the train `pool` (holdout ids sealed), empty engine state."""
        self.plan = plan
        write_json_atomic(self.records.holdout_plan, {"holdout_ids": list(self.plan.holdout_ids)})
        saved = {"train_ids": list(self.plan.train_ids), "holdout_size": len(self.plan.holdout_ids),
                 "val_ids": list(self.plan.val_ids)}
        write_json_atomic(self.records.run_plan, {"plan": saved, "seed": self.config.seed})
        self._index(pool)
        shutil.rmtree(self.files.state, ignore_errors=True)

    def _load_plan(self) -> None:
        saved = read_json(self.records.run_plan, None)
        sealed = read_json(self.records.holdout_plan, None)
        if saved is None or sealed is None:
            missing = self.records.run_plan if saved is None else self.records.holdout_plan
            raise WorkspaceError(f"{missing}: missing; the run's task plan cannot be restored")
        self.plan = TaskPlan.from_dict({**saved["plan"], "holdout_ids": sealed["holdout_ids"]})
        self._index(self.benchmark.get_tasks("train", limit=self.config.task_pool_limit))

    def _index(self, pool: list[Task]) -> None:
        by_id = {t.id: t for t in pool}
        missing = [i for i in (*self.plan.train_ids, *self.plan.holdout_ids, *self.plan.val_ids) if i not in by_id]
        if missing:
            raise AgentEvolveError(f"{self.path}: the benchmark no longer has {len(missing)} task(s) this run was "
                                   f"planned on ({', '.join(missing[:5])}); put them back to resume, or start a new "
                                   "run in another workspace")
        self.train_tasks = {i: by_id[i] for i in self.plan.train_ids}
        self.holdout_tasks = [by_id[i] for i in self.plan.holdout_ids]
        self.val_tasks = {i: by_id[i] for i in self.plan.val_ids}
