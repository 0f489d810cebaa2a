"""RunSession: the side effects of one run (lock, git, plan, engine state, guarded steps), fresh or resumed."""

from __future__ import annotations

import fcntl
import logging
import shutil
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evolve.contract.manifest import LAYER_PATHS, load_manifest
from agent_evolve.contract.validate import validate_workspace
from agent_evolve.engine.base import EngineContext
from agent_evolve.engine.executors import make_executor
from agent_evolve.engine.journal import Journal
from agent_evolve.engine.records import read_json, write_json_atomic
from agent_evolve.engine.solving import mean_score, solve_all
from agent_evolve.engine.tasks import TaskPlan, plan_tasks
from agent_evolve.engine.trial import TrialRunner
from agent_evolve.engine.versioning import VersionControl
from agent_evolve.errors import AgentEvolveError, BudgetExceededError, WorkspaceError
from agent_evolve.llm.factory import apply_config_limits
from agent_evolve.protocol.base_agent import BaseAgent
from agent_evolve.types import Feedback, Observation, StepResult, Task

if TYPE_CHECKING:
    from agent_evolve.engine.loop import EvolutionLoop

log = logging.getLogger(__name__)


@dataclass
class StepOutcome:
    """What a step did to the workspace, as the loop measured it (not as the engine claimed)."""

    status: str
    mutated: bool
    summary: str
    metadata: dict[str, Any] = field(default_factory=dict)
    changed_paths: list[str] = field(default_factory=list)
    reverted_paths: list[str] = field(default_factory=list)
    reported_usage: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_journal(cls, entry: dict[str, Any]) -> StepOutcome:
        return cls(**{k: v for k, v in entry.items() if k not in ("cycle", "phase")})


class RunSession:
    """Holds the run's plan and accepted version; every method that touches git, files or the engine is here."""

    def __init__(self, loop: EvolutionLoop, journal: Journal):
        self.loop = loop
        self.config = loop.config
        self.path = Path(loop.workspace.path)
        self.records = loop.records
        self.vc = VersionControl(self.path)
        self.executor = make_executor(self.config, loop.agent_factory, loop.ledger)
        self.journal = journal
        self.ledger = loop.ledger
        self._usage_mark = self.ledger.by_role()
        self.plan = TaskPlan((), ())
        self.train_tasks: dict[str, Task] = {}
        self.holdout_tasks: list[Task] = []
        self.val_tasks: dict[str, Task] = {}
        self.cursor = 0
        self.accepted_tag = "evo-0"
        self.accepted_score = 0.0
        self.baseline_score = 0.0
        self.layers: list[str] = []

    @classmethod
    @contextmanager
    def open(cls, loop: EvolutionLoop) -> Iterator[RunSession]:
        """Lock the workspace, then start a fresh run or resume the journaled one."""
        records = loop.records
        records.root.mkdir(parents=True, exist_ok=True)
        with records.lock.open("w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise WorkspaceError(f"{loop.workspace.path}: another evolution run is using this workspace") from exc
            session = cls(loop, Journal(records.journal))
            apply_config_limits(loop.config, session.ledger)
            session.vc.init()
            session.layers = session.evolvable_layers()
            if session.journal.has(0, "baseline"):
                session._resume()
            else:
                session._start_fresh()
            yield session

    # -- start and resume --------------------------------------------------------------------------------

    def _start_fresh(self) -> None:
        engine = self.loop.engine
        if self.journal.has(0, "started"):
            self.vc.reset_to("evo-0")
            self.restore_engine_state("0")
            self._load_plan()
        else:
            if self.vc.has_ref("pre-evo-0"):
                self.vc.reset_to("pre-evo-0")
            else:
                self.vc.commit("workspace at the start of the run", tag="pre-evo-0")
            self._check_workspace()
            self._make_plan()
            shutil.rmtree(self.records.engine / "state", ignore_errors=True)
            ctx = self.context(0)
            engine.setup(ctx)
            outcome = self._settle("pre-evo-0", self._guarded(lambda: engine.bootstrap(ctx), allow_none=True))
            self.vc.commit(f"cycle 0: {outcome.summary or 'starting workspace'}"[:200], tag="evo-0")
            self.snapshot_engine_state("0")
            self.journal.record(0, "started", summary=outcome.summary, status=outcome.status)
        self.loop.agent = self.reload_agent(self.loop.agent)
        total = len(self.holdout_tasks)
        self.loop.emit(0, "baseline", total=total)
        progress = lambda n: self.loop.emit(0, "baseline", done=n, total=total)  # noqa: E731
        score = self.evaluate_holdout(self.loop.agent, progress)[0] if self.plan.holdout_ids else 0.0
        self.accepted_tag, self.accepted_score, self.baseline_score = "evo-0", score, score
        self.journal.record(0, "baseline", accepted_tag="evo-0", accepted_score=score)

    def _resume(self) -> None:
        self._load_plan()
        self.baseline_score = float(self.journal.phases(0)["baseline"]["accepted_score"])
        accepted = self.journal.last_entry("baseline", "recorded", "finished") or {}
        self.accepted_tag = accepted.get("accepted_tag", "evo-0")
        self.accepted_score = float(accepted.get("accepted_score", self.baseline_score))
        solved = self.journal.last_entry("solved")
        self.cursor = int(solved["cursor"]) if solved else 0
        last = self.journal.last_recorded_cycle()
        stepped = self.journal.has(last + 1, "stepped")
        self.restore_engine_state(f"{last + 1}-stepped" if stepped else str(last))
        log.info("resuming %s after cycle %d (accepted %s)", self.path, last, self.accepted_tag)

    def _check_workspace(self) -> None:
        problems = self._problems()
        if problems:
            raise WorkspaceError("workspace is invalid:\n  " + "\n  ".join(problems))

    def _problems(self) -> list[str]:
        """Workspace problems; a workspace without a manifest (a user's own agent) is checked for the rest."""
        return validate_workspace(self.path, require_manifest=False)

    def _make_plan(self) -> None:
        pool = self.loop.benchmark.get_tasks("train", limit=self.config.task_pool_limit)
        if not pool:
            raise AgentEvolveError(f"benchmark {type(self.loop.benchmark).__name__} returned no train tasks")
        cfg = self.config
        self.plan = plan_tasks(
            [t.id for t in pool], cfg.holdout_ratio, cfg.seed, cfg.holdout_limit, cfg.val_ratio, cfg.val_limit
        )
        write_json_atomic(self.records.run_plan, {"plan": self.plan.to_dict(), "seed": self.config.seed})
        self._index(pool)

    def _load_plan(self) -> None:
        saved = read_json(self.records.run_plan, None)
        if saved is None:
            raise WorkspaceError(f"{self.records.run_plan}: missing; the run's task plan cannot be restored")
        self.plan = TaskPlan.from_dict(saved["plan"])
        self._index(self.loop.benchmark.get_tasks("train", limit=self.config.task_pool_limit))

    def _index(self, pool: list[Task]) -> None:
        by_id = {t.id: t for t in pool}
        missing = [i for i in (*self.plan.train_ids, *self.plan.holdout_ids, *self.plan.val_ids) if i not in by_id]
        if missing:
            raise AgentEvolveError(f"the benchmark no longer has tasks of this run's plan: {missing[:5]}")
        self.train_tasks = {i: by_id[i] for i in self.plan.train_ids}
        self.holdout_tasks = [by_id[i] for i in self.plan.holdout_ids]
        self.val_tasks = {i: by_id[i] for i in self.plan.val_ids}

    # -- engine calls --------------------------------------------------------------------------------------

    def context(self, cycle: int) -> EngineContext:
        engine_dir = self.records.engine
        scratch = engine_dir / "scratch"
        shutil.rmtree(scratch, ignore_errors=True)
        for folder in (engine_dir / "state", scratch, engine_dir / "output" / f"cycle_{cycle}"):
            folder.mkdir(parents=True, exist_ok=True)
        ctx = EngineContext(
            config=self.config,
            workspace=self.loop.workspace,
            history=self.loop.history,
            state_dir=engine_dir / "state",
            scratch_dir=scratch,
            output_dir=engine_dir / "output" / f"cycle_{cycle}",
            cycle=cycle,
        )
        self.loop.engine.context = ctx
        return ctx

    def step(self, cycle: int, observations: list[Observation]) -> StepOutcome:
        """Run engine.step on the pre-evolution snapshot, then keep only valid edits to evolvable layers."""
        pre = f"pre-evo-{cycle}"
        self.vc.reset_to(pre)
        ctx = self.context(cycle)
        ctx.trial = TrialRunner(
            self.train_tasks,
            self.loop.benchmark,
            self.loop.agent_factory,
            self.path,
            self.config.concurrency,
            default_ids=[o.task.id for o in observations],
            validation_tasks=self.val_tasks,
        )
        visible = hide_feedback(observations) if self.config.trajectory_only else observations
        engine = self.loop.engine
        result = self._guarded(lambda: engine.step(self.loop.workspace, visible, self.loop.history, ctx.trial))
        outcome = self._settle(pre, result)
        self.vc.commit(f"cycle {cycle} candidate: {outcome.summary}"[:200], tag=f"cand-{cycle}")
        self.snapshot_engine_state(f"{cycle}-stepped")
        return outcome

    def _guarded(self, call: Callable[[], StepResult | None], allow_none: bool = False) -> StepResult:
        """An exception or a wrong return type from the engine is a failed step; a spent budget is out_of_budget."""
        try:
            result = call()
        except BudgetExceededError as exc:
            return StepResult(mutated=False, summary=f"budget exhausted: {exc}", status="out_of_budget")
        except Exception as exc:  # noqa: BLE001 - any engine crash is a recorded failed step
            log.warning("engine %s failed: %s: %s", self.loop.engine.engine_name, type(exc).__name__, exc)
            return StepResult(
                mutated=False,
                summary=f"step raised {type(exc).__name__}: {exc}",
                status="failed",
                metadata={"traceback": traceback.format_exc(limit=8)},
            )
        if result is None and allow_none:
            return StepResult(mutated=False, summary="")
        if not isinstance(result, StepResult):
            return StepResult(False, f"step returned {type(result).__name__}, not StepResult", status="failed")
        return result

    def _settle(self, pre: str, result: StepResult) -> StepOutcome:
        """Measure the change by diff, revert edits outside evolvable layers, reject an invalid workspace."""
        base = StepOutcome(
            status=result.status,
            mutated=False,
            summary=result.summary,
            metadata={**result.metadata, "engine_reported_mutated": result.mutated},
            reported_usage=result.usage.to_dict(),
        )
        if result.status in ("failed", "out_of_budget"):
            self.vc.reset_to(pre)
            return base
        changed = self.vc.changed_paths(pre)
        layer_dirs = {LAYER_PATHS[layer] for layer in self.layers}
        outside = [p for p in changed if p.split("/", 1)[0] not in layer_dirs]
        if outside:
            self.vc.restore_paths(pre, outside)
        problems = self._problems()
        if problems:
            self.vc.reset_to(pre)
            return replace(base, status="failed", summary=f"step left an invalid workspace: {problems[0]}")
        inside = [p for p in changed if p not in outside]
        return replace(base, mutated=bool(inside), changed_paths=inside, reverted_paths=outside)

    def evolvable_layers(self) -> list[str]:
        """Layers the manifest allows and the config enables."""
        enabled = {
            "prompts": self.config.evolve_prompts,
            "skills": self.config.evolve_skills,
            "memory": self.config.evolve_memory,
            "tools": self.config.evolve_tools,
        }
        declared = load_manifest(self.path).evolvable_layers if (self.path / "manifest.yaml").exists() else list(enabled)
        return [layer for layer in declared if enabled.get(layer, False)]

    def snapshot_engine_state(self, label: str) -> None:
        source, target = self.records.engine / "state", self.records.engine / "snapshots" / label
        staging = target.with_name(f".{label}.tmp")
        shutil.rmtree(staging, ignore_errors=True)
        if source.exists():
            shutil.copytree(source, staging)
        else:
            staging.mkdir(parents=True)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)

    def restore_engine_state(self, label: str) -> None:
        state, snapshot = self.records.engine / "state", self.records.engine / "snapshots" / label
        shutil.rmtree(state, ignore_errors=True)
        if snapshot.exists():
            shutil.copytree(snapshot, state)
        else:
            state.mkdir(parents=True, exist_ok=True)

    def finalize(self) -> None:
        """Let the engine pick the final version among accepted ones; record the choice."""
        ctx = self.context(self.journal.last_recorded_cycle())
        try:
            chosen = self.loop.engine.finalize(ctx)
        except Exception as exc:  # noqa: BLE001 - a failing finalize keeps the accepted version
            log.warning("engine finalize failed, keeping %s: %s", self.accepted_tag, exc)
            return
        if not chosen or chosen == self.accepted_tag:
            return
        scores = {e["accepted_tag"]: e["accepted_score"] for e in self.journal.entries("baseline", "recorded")}
        if chosen not in scores:
            log.warning("engine finalize chose %s, which was never accepted; keeping %s", chosen, self.accepted_tag)
            return
        self.vc.reset_to(chosen)
        self.accepted_tag, self.accepted_score = chosen, float(scores[chosen])
        self.journal.record(self.journal.last_recorded_cycle(), "finished", accepted_tag=chosen, accepted_score=self.accepted_score)

    # -- agents, evaluation, usage -------------------------------------------------------------------------

    def reload_agent(self, agent: BaseAgent) -> BaseAgent:
        """Hot reload re-reads the files; cold reload builds a new agent from them."""
        has_manifest = (self.path / "manifest.yaml").exists()
        if has_manifest and load_manifest(self.path).reload_strategy == "cold":
            return self.loop.agent_factory(self.path)
        agent.reload_from_fs()
        return agent

    def evaluate_holdout(
        self, agent: BaseAgent, on_progress: Callable[[int], None] | None = None
    ) -> tuple[float, list[dict[str, Any]]]:
        """Score an agent on the holdout; only scores are kept, never the trajectories."""
        count = [0]

        def done(_: Observation) -> None:
            count[0] += 1
            if on_progress:
                on_progress(count[0])

        observations = solve_all(agent, self.loop.benchmark, self.holdout_tasks, self.config.concurrency, done, self.executor)
        per_task = [{"task_id": o.task.id, "score": o.feedback.score, "success": o.feedback.success} for o in observations]
        return mean_score(observations), per_task

    def take_usage(self, outcome: StepOutcome) -> dict[str, dict[str, float]]:
        """Model usage since the last call, by role, plus usage the engine reported outside the metered clients."""
        now = self.ledger.by_role()
        delta = {role: (usage - self._usage_mark.get(role, type(usage)())).to_dict() for role, usage in now.items()}
        self._usage_mark = now
        if any(outcome.reported_usage.values()):
            delta["engine_reported"] = dict(outcome.reported_usage)
        return {role: numbers for role, numbers in delta.items() if any(numbers.values())}

    def budget_spent(self) -> bool:
        try:
            self.ledger.check_budget()
        except BudgetExceededError:
            return True
        return False


def hide_feedback(observations: list[Observation]) -> list[Observation]:
    """trajectory_only: the engine sees what the agent did, never its score or the grader's feedback."""
    return [replace(o, feedback=Feedback(success=False, score=0.0, detail="", raw={"hidden": True})) for o in observations]
