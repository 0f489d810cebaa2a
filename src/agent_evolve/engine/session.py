"""RunSession: the lock, a fresh start (plan, setup, bootstrap) or a resume, and the engine's calls with context."""

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
from agent_evolve.engine import transitions
from agent_evolve.engine.base import EngineContext, EvolutionEngine, StepProgress
from agent_evolve.engine.context_fields import call_message, engine_params, task_info
from agent_evolve.engine.engine_files import EngineFiles
from agent_evolve.engine.journal import CLOSING_PHASES, Journal, Phase
from agent_evolve.engine.observer import EvolutionHistory
from agent_evolve.engine.records import RunRecords, read_json, write_json_atomic
from agent_evolve.engine.run_lock import holding_run_lock
from agent_evolve.engine.state import RunState
from agent_evolve.engine.stepping import StepOutcome, guarded_step, workspace_problems
from agent_evolve.engine.tasks import TaskPlan, plan_tasks
from agent_evolve.engine.trial import TrialRunner
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
        """Lock the workspace, then start a fresh run (up to its bootstrap) or load the journaled one's plan.

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
                session._start_fresh()
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

    def _start_fresh(self) -> None:
        """Plan the tasks, let the engine set up and bootstrap, commit the result as the baseline version."""
        pre = transitions.start(self.vc)
        problems = workspace_problems(self.path)
        if problems:
            raise WorkspaceError("workspace is invalid:\n  " + "\n  ".join(problems))
        self._make_plan()
        self.files.wipe_state()
        ctx = self.context(0)
        self.engine.setup(ctx)
        outcome = guarded_step(self.engine, self.engine.bootstrap, ctx, self.vc, self.layers, pre, allow_none=True,
                               ledger=self.ledger)
        transitions.record_baseline(self.vc, outcome.summary)
        self.files.snapshot("0")
        self.journal.record(0, Phase.STARTED, summary=outcome.summary, status=outcome.status,
                            charged_usage=outcome.charged_usage, session=outcome.session)

    def _make_plan(self) -> None:
        pool = self.benchmark.get_tasks("train", limit=self.config.task_pool_limit)
        if not pool:
            raise AgentEvolveError(f"benchmark {type(self.benchmark).__name__} returned no train tasks")
        ids = [t.id for t in pool]
        cfg = self.config
        self.plan = plan_tasks(ids, cfg.holdout_ratio, cfg.seed, cfg.holdout_limit, cfg.val_ratio, cfg.val_limit)
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

    def context(
        self, cycle: int, trial: TrialRunner | None = None, progress: StepProgress | None = None
    ) -> EngineContext:
        """A fresh context for an engine call; also set on the engine for engines that read `self.context`."""
        ctx = self.files.context(self.config, self.workspace, self.history, cycle, trial)
        ctx.params = engine_params(self.engine, self.config)
        ctx.task_info = task_info(self.benchmark, self.plan, self.layers)
        ctx.tools = {"check_spec": lambda: workspace_problems(self.path)}
        if trial is not None:
            ctx.tools["run_agent"] = trial
        ctx.cancel = self.cancel
        ctx.progress = progress
        ctx.session = self.previous_session(cycle)
        ctx.message = call_message(ctx)
        self.engine.context = ctx
        return ctx

    def previous_session(self, cycle: int) -> str | None:
        """The last session handle an engine call up to `cycle` returned (a step's own is journaled after it
        returns), when resume is enabled and supported."""
        if not (self.config.engine_resume and self.engine.supports_resume):
            return None
        handles = [e.get("session") for e in self.journal.entries(Phase.STARTED, Phase.STEPPED) if e["cycle"] <= cycle]
        return next((h for h in reversed(handles) if h), None)

    def finalize(self, state: RunState) -> None:
        """Let the engine pick the final version among accepted ones; journal the choice."""
        last = self.journal.last_recorded_cycle()
        try:
            chosen = self.engine.finalize(self.context(last))
        except Exception as exc:  # noqa: BLE001 - a failing finalize keeps the accepted version
            log.warning("engine finalize failed, keeping %s: %s", state.accepted_tag, exc)
            return
        if not chosen or chosen == state.accepted_tag:
            return
        accepted = {e["accepted_tag"]: e for e in self.journal.entries(*CLOSING_PHASES)}
        if chosen not in accepted:
            log.warning("engine finalize chose %s, which was never accepted; keeping %s", chosen, state.accepted_tag)
            return
        entry = accepted[chosen]
        transitions.finalize(self.vc, chosen)
        state.accept(chosen, int(entry.get("accepted_cycle", 0)), float(entry["accepted_score"]),
                     int(entry.get("accepted_count", 0)))
        self.journal.record(last, Phase.FINISHED, **state.accepted_fields())


__all__ = ["RunSession", "StepOutcome"]
